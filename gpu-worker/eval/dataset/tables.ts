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
