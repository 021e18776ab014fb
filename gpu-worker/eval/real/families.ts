/**
 * The task families of the real-text set: each turns source records into items (state, question, answer and
 * the two independent labels it was kept on). Labels come from the sources' own human judgements (VADER rater
 * groups, the SpamAssassin folders, the ChatterBot files, MITRE's CWE entries, an interview-question author's
 * levels) or, for presence checks, from a stated rule.
 */
import { jsonObject } from "../../../schema/json";
import { renderState, substitute } from "../../../schema/render";
import type { Rng } from "../../../schema/rng";
import { check, type DistQuestion, pick, rate } from "../dataset/item";
import type { Dialogue } from "./read-chatterbot";
import type { Weakness } from "./read-cwe";
import { INTERVIEW_LEVELS, type InterviewQuestion } from "./read-interview";
import type { Mail } from "./read-mail";
import { type RatedText, sentimentClass } from "./read-vader";

/** One labelled question before ids and splits are assigned. */
export interface RealDraft {
  family: string;
  /** What the truth rests on (shown in docs/quality.md). */
  truth: string;
  /** Source text key: drafts with one key share a split side. */
  key: string;
  state: string;
  question: DistQuestion;
  answer: number | boolean;
  /** The readings the item was kept on: two independent ones where the source has two (they agree), else one. */
  labels: string[];
}

const SENTIMENT_LEVELS = ["negative", "neutral", "positive"];
const POSITIVE_QS = ["Is the sentiment of the text positive?", "Is the writer happy with it?"];
const NEGATIVE_QS = ["Is the text negative?", "Is the writer unhappy or complaining?"];
const GENRES: Record<RatedText["corpus"], string> = {
  tweets: "a social media post",
  amazon: "a product review",
  movies: "a movie review",
  nyt: "a newspaper editorial",
};

/** Sentiment check (polar texts) and 3-level rating (all texts), plus the genre pick on every third text. */
export function sentimentItems(texts: RatedText[], rng: Rng): RealDraft[] {
  return texts.flatMap((t, i) => {
    const cls = sentimentClass(t.meanA) as string;
    const labels = [`raters-even:${t.meanA.toFixed(2)}`, `raters-odd:${t.meanB.toFixed(2)}`];
    const base = { key: `vader/${t.corpus}/${t.id}`, state: t.text, labels };
    const out: RealDraft[] = [
      {
        ...base,
        family: "sentiment-rate",
        truth: `VADER ${t.corpus}: both rater groups' class`,
        question: rate("What is the overall sentiment of the text?", SENTIMENT_LEVELS),
        answer: SENTIMENT_LEVELS.indexOf(cls),
      },
    ];
    if (cls !== "neutral") {
      const askPositive = rng.bool();
      out.push({
        ...base,
        family: "sentiment-check",
        truth: `VADER ${t.corpus}: both rater groups' polarity`,
        question: check(rng.pick(askPositive ? POSITIVE_QS : NEGATIVE_QS)),
        answer: askPositive === (cls === "positive"),
      });
    }
    if (i % 3 === 0) {
      const options = rng.shuffle(Object.values(GENRES));
      out.push({
        ...base,
        family: "genre-pick",
        truth: "VADER corpus the snippet comes from",
        labels: [`corpus:${t.corpus}`],
        question: pick("What kind of text is this?", options),
        answer: options.indexOf(GENRES[t.corpus]),
      });
    }
    return out;
  });
}

const MONEY = /[$£€]\s?\d|\d\s?(?:dollars?|bucks|usd|euros?|eur)\b/i;
const MONEY_WORDS = /[$£€]|\d|dollar|buck|price|cost|cheap|expensive|paid|pay|money|cent|euro|pound|usd/i;

/** "Does the text mention a price?": yes where a currency amount appears, no where no digit or money word does. */
export function priceItems(texts: RatedText[]): RealDraft[] {
  return texts.flatMap((t) => {
    const yes = MONEY.test(t.text);
    if (!yes && MONEY_WORDS.test(t.text)) return [];
    return [
      {
        family: "price-check",
        truth: "rule: a currency amount in the text (no: neither digits nor money words)",
        key: `vader/${t.corpus}/${t.id}`,
        state: t.text,
        question: check("Does the text mention a price or an amount of money?"),
        answer: yes,
        labels: [`currency-amount:${yes}`, `money-words:${MONEY_WORDS.test(t.text)}`],
      },
    ];
  });
}

/** Longest body kept per mail (characters, cut at a word): states of up to ~300 tokens. */
export const MAIL_CHARS = 900;
const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, s.lastIndexOf(" ", n))} …`);

/** Spam checks on mails (every fourth as a JSON state asked through `{{subject}}`) and link-presence checks. */
export function mailItems(mails: Mail[], rng: Rng): RealDraft[] {
  return mails.flatMap((m, i) => {
    const body = clip(m.body, MAIL_CHARS);
    const text = `Subject: ${m.subject}\n\n${body}`;
    const labels = [`folder:${m.group}`];
    const key = `mail/${m.id}`;
    const truth = "SpamAssassin corpus folder (spam / ham, sorted by its maintainers)";
    const json = jsonObject([
      ["channel", "email"],
      ["subject", m.subject],
      ["body", body],
    ]);
    const spam: RealDraft =
      i % 4 === 0
        ? {
            family: "spam-json-check",
            truth,
            key,
            state: renderState(json),
            question: check(substitute('Is the e-mail with the subject "{{subject}}" spam?', json)),
            answer: m.spam,
            labels,
          }
        : {
            family: "spam-check",
            truth,
            key,
            state: text,
            question: check(
              rng.pick(["Is this e-mail spam?", "Is this message unsolicited bulk mail or a scam?"]),
            ),
            answer: m.spam,
            labels,
          };
    const link = /https?:\/\/|www\./i.test(body);
    const out = [spam];
    if (i % 2 === 1)
      out.push({
        family: "link-check",
        truth: "rule: `http://`, `https://` or `www.` in the body",
        key,
        state: text,
        question: check("Does the e-mail contain a link?"),
        answer: link,
        labels: [`url-rule:${link}`],
      });
    return out;
  });
}

const LANGUAGE: Record<string, string> = {
  english: "English",
  spanish: "Spanish",
  french: "French",
  german: "German",
  italian: "Italian",
  portuguese: "Portuguese",
  dutch: "Dutch",
  indonesian: "Indonesian",
  turkish: "Turkish",
  swedish: "Swedish",
};
export const LANGUAGES = Object.keys(LANGUAGE);

/** Which language a dialogue is in: four options, the right one among three others. */
export function languageItems(ds: Dialogue[], rng: Rng): RealDraft[] {
  return ds.map((d) => {
    const others = rng.sample(
      LANGUAGES.filter((l) => l !== d.language),
      3,
    );
    const options = rng.shuffle([d.language, ...others]).map((l) => LANGUAGE[l] as string);
    return {
      family: "language-pick",
      truth: "ChatterBot corpus language folder",
      key: `chat/${d.language}/${d.lines[0]}`,
      state: d.lines.join("\n"),
      question: pick("Which language is the message written in?", options),
      answer: options.indexOf(LANGUAGE[d.language] as string),
      labels: [`folder:${d.language}`],
    };
  });
}

const TOPIC: Record<string, string> = {
  food: "food",
  sports: "sports",
  money: "money",
  health: "health",
  history: "history",
  movies: "movies",
  science: "science",
  computers: "computers",
  politics: "politics",
  literature: "literature",
};
export const TOPICS = Object.keys(TOPIC);

/** Topic of an English dialogue: a 4-option pick (even positions) or a yes/no check (odd positions). */
export function topicItems(ds: Dialogue[], rng: Rng): RealDraft[] {
  return ds.map((d, i) => {
    const base = {
      truth: "ChatterBot corpus category file",
      key: `chat/${d.language}/${d.lines[0]}`,
      state: d.lines.join("\n"),
      labels: [`file:${d.category}`],
    };
    if (i % 2 === 0) {
      const others = rng.sample(
        TOPICS.filter((t) => t !== d.category),
        3,
      );
      const options = rng.shuffle([d.category, ...others]).map((t) => TOPIC[t] as string);
      return {
        ...base,
        family: "topic-pick",
        question: pick("What is the conversation about?", options),
        answer: options.indexOf(TOPIC[d.category] as string),
      };
    }
    const asked = rng.bool() ? d.category : rng.pick(TOPICS.filter((t) => t !== d.category));
    return {
      ...base,
      family: "topic-check",
      question: check(`Is the conversation about ${TOPIC[asked]}?`),
      answer: asked === d.category,
    };
  });
}

const LIKELIHOOD_LEVELS = ["low", "medium", "high"];

/** "How likely is this weakness to be exploited?": MITRE's `Likelihood_Of_Exploit` of a CWE entry. */
export function exploitItems(weaknesses: Weakness[]): RealDraft[] {
  return weaknesses.map((w) => ({
    family: "exploit-rate",
    truth: "MITRE's Likelihood_Of_Exploit of the CWE 4.14 entry",
    key: `cwe/${w.id}`,
    state: `${w.name}\n\n${w.description}`,
    question: rate("How likely is this weakness to be exploited?", LIKELIHOOD_LEVELS),
    answer: LIKELIHOOD_LEVELS.indexOf(w.likelihood.toLowerCase()),
    labels: [`cwe:${w.id}`, `likelihood:${w.likelihood}`],
  }));
}

/** "How difficult is this JavaScript interview question?": the level its author filed it under. */
export function difficultyItems(questions: InterviewQuestion[]): RealDraft[] {
  return questions.map((q) => ({
    family: "difficulty-rate",
    truth: "the interview-questions author's level",
    key: `interview/${q.title}`,
    state: clip(q.text, MAIL_CHARS),
    question: rate("How difficult is this JavaScript interview question?", [...INTERVIEW_LEVELS]),
    answer: INTERVIEW_LEVELS.indexOf(q.level),
    labels: [`level:${q.level}`],
  }));
}
