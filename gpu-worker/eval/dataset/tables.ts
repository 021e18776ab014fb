/** Hand-written word tables; every entry belongs to exactly one category (checked by the builder). */
export const CATEGORIES: Record<string, { noun: string; words: string[] }> = {
  animal: {
    noun: "an animal",
    words: [
      "tiger",
      "horse",
      "rabbit",
      "elephant",
      "dog",
      "cat",
      "lion",
      "sheep",
      "monkey",
      "zebra",
      "giraffe",
      "wolf",
      "mouse",
      "cow",
      "bear",
      "fox",
    ],
  },
  colour: {
    noun: "a colour",
    words: ["red", "blue", "green", "yellow", "purple", "black", "white", "pink", "brown", "grey"],
  },
  fruit: {
    noun: "a fruit",
    words: ["apple", "banana", "cherry", "grape", "lemon", "mango", "peach", "pear", "plum", "strawberry"],
  },
  vehicle: {
    noun: "a vehicle",
    words: ["car", "bus", "truck", "bicycle", "train", "tractor", "motorcycle", "van", "taxi", "scooter"],
  },
  furniture: {
    noun: "a piece of furniture",
    words: ["table", "chair", "sofa", "bed", "desk", "wardrobe", "shelf", "stool", "bench", "cupboard"],
  },
};

/** Templated sentences whose topic is fixed by the vocabulary slotted in. */
export const TOPICS: Record<string, { templates: string[]; fill: string[] }> = {
  sports: {
    templates: [
      "The {x} scored in the final minute and the team won the match.",
      "After the {x} the players celebrated their victory in the league.",
      "The coach praised the {x} after the football game.",
    ],
    fill: ["striker", "goalkeeper", "captain", "defender", "winger"],
  },
  cooking: {
    templates: [
      "Chop the {x}, fry it in butter and season the dish with salt.",
      "Bake the {x} in the oven for twenty minutes, then serve it warm.",
      "The recipe needs one {x}, two eggs and a cup of flour.",
    ],
    fill: ["onion", "potato", "carrot", "pumpkin", "leek"],
  },
  weather: {
    templates: [
      "Heavy {x} is expected tomorrow, with strong winds along the coast.",
      "The forecast says {x} in the morning and sunshine in the afternoon.",
      "Temperatures will drop tonight and {x} will reach the hills.",
    ],
    fill: ["rain", "snow", "fog", "hail", "drizzle"],
  },
  finance: {
    templates: [
      "The bank raised interest rates and the {x} fell on the stock market.",
      "Investors sold their {x} after the company reported a loss.",
      "The {x} rose by three percent as markets opened higher.",
    ],
    fill: ["shares", "bonds", "index", "dollar", "stocks"],
  },
};

export const REVIEW_SUBJECTS = [
  "hotel",
  "restaurant",
  "phone",
  "film",
  "book",
  "laptop",
  "cafe",
  "hairdresser",
  "camera",
  "museum",
];

/** Clear-cut sentiment templates; `{s}` = subject. */
export const REVIEWS = {
  positive: [
    "I loved this {s}. It was wonderful and I will come back.",
    "The {s} was excellent, friendly and great value. Highly recommended!",
    "Amazing {s}! Everything was perfect and I am very happy.",
    "What a fantastic {s}. I enjoyed every minute.",
  ],
  negative: [
    "I hated this {s}. It was awful and a waste of money.",
    "The {s} was terrible, rude and overpriced. Never again!",
    "Horrible {s}! Everything went wrong and I am very disappointed.",
    "What a dreadful {s}. I regret every minute.",
  ],
  neutral: [
    "The {s} opens at nine and closes at six.",
    "I visited the {s} on Tuesday with my brother.",
    "The {s} is on the second floor of the building.",
    "The {s} was delivered in a brown box last week.",
  ],
};

export const CURRENCY_CODES = [
  "EUR",
  "USD",
  "JPY",
  "GBP",
  "CHF",
  "INR",
  "CNY",
  "BRL",
  "MXN",
  "SEK",
  "NOK",
  "CAD",
  "AUD",
  "RUB",
  "KRW",
  "TRY",
  "ZAR",
  "EGP",
  "PLN",
  "THB",
];
export const REGION_CODES = [
  "DE",
  "FR",
  "JP",
  "BR",
  "IN",
  "EG",
  "CA",
  "KE",
  "IT",
  "ES",
  "MX",
  "CN",
  "RU",
  "AU",
  "AR",
  "SE",
  "NO",
  "PL",
  "TR",
  "GR",
];

/** Wave 2: every current ISO 4217 code that ICU names (`Intl.supportedValuesOf("currency")`, ICU 78), frozen here. */
export const ALL_CURRENCY_CODES =
  "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XCG XDR XOF XPF XSU YER ZAR ZMW ZWG ZWL".split(
    " ",
  );
/** Wave 2: ISO 3166-1 alpha-2 codes ICU names, without groupings (EU, UN, ...) and deprecated aliases. */
export const ALL_REGION_CODES =
  "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW".split(
    " ",
  );

export const NAMES = ["Anna", "Tom", "Maria", "Ben", "Lucy", "Omar", "Sara", "Jack", "Mia", "Leo"];
export const THINGS = ["apples", "books", "coins", "pencils", "stickers", "cookies", "marbles", "stamps"];
export const LIST_ITEMS = [
  "milk",
  "eggs",
  "bread",
  "butter",
  "rice",
  "cheese",
  "tea",
  "soap",
  "salt",
  "honey",
];
export const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
export const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
