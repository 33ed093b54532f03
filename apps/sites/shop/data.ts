/** The seeded catalog: names, prices, descriptions and reviews, all a pure function of the seed. */
import { rng } from "../framework/prng.ts"
import type { Category, Product, Review, ShopBase, ShopState } from "./types.ts"

interface CategorySpec extends Category {
  readonly nouns: ReadonlyArray<string>
  /** Price range in whole dollars. */
  readonly price: readonly [number, number]
  readonly use: string
}

const categorySpecs: ReadonlyArray<CategorySpec> = [
  {
    id: "kitchen",
    name: "Kitchen",
    blurb: "Cookware, appliances and tools for the home cook.",
    nouns: [
      "Kettle",
      "Skillet",
      "Chef Knife",
      "Blender",
      "Toaster",
      "Cutting Board",
      "Coffee Grinder",
      "Teapot",
      "Mixing Bowl Set",
      "Stockpot",
      "French Press",
      "Spice Rack"
    ],
    price: [12, 180],
    use: "everyday cooking"
  },
  {
    id: "electronics",
    name: "Electronics",
    blurb: "Headphones, speakers, chargers and gadgets.",
    nouns: [
      "Headphones",
      "Bluetooth Speaker",
      "Power Bank",
      "USB-C Charger",
      "Webcam",
      "Keyboard",
      "Wireless Mouse",
      "Smart Plug",
      "Desk Lamp",
      "Earbuds",
      "Monitor Stand",
      "E-Reader"
    ],
    price: [15, 320],
    use: "work and play"
  },
  {
    id: "books",
    name: "Books",
    blurb: "Novels, guides and cookbooks.",
    nouns: [
      "Cookbook",
      "Field Guide",
      "Novel",
      "Atlas",
      "Poetry Collection",
      "Travel Guide",
      "History",
      "Sketchbook",
      "Journal",
      "Puzzle Book",
      "Biography",
      "Short Stories"
    ],
    price: [8, 45],
    use: "quiet evenings"
  },
  {
    id: "outdoor",
    name: "Outdoor",
    blurb: "Gear for hiking, camping and the garden.",
    nouns: [
      "Tent",
      "Backpack",
      "Water Bottle",
      "Headlamp",
      "Sleeping Bag",
      "Camp Stove",
      "Trekking Poles",
      "Hammock",
      "Garden Hose",
      "Cooler",
      "Picnic Blanket",
      "Rain Jacket"
    ],
    price: [10, 260],
    use: "weekends outside"
  },
  {
    id: "clothing",
    name: "Clothing",
    blurb: "Everyday clothes and accessories.",
    nouns: [
      "T-Shirt",
      "Hoodie",
      "Wool Socks",
      "Beanie",
      "Scarf",
      "Denim Jacket",
      "Sneakers",
      "Rain Boots",
      "Gloves",
      "Sweater",
      "Cap",
      "Belt"
    ],
    price: [9, 140],
    use: "every season"
  },
  {
    id: "toys",
    name: "Toys & Games",
    blurb: "Board games, puzzles and building sets.",
    nouns: [
      "Board Game",
      "Jigsaw Puzzle",
      "Building Set",
      "Kite",
      "Card Game",
      "Plush Bear",
      "Train Set",
      "Yo-Yo",
      "Marble Run",
      "Chess Set",
      "Dollhouse",
      "Science Kit"
    ],
    price: [7, 120],
    use: "family game night"
  }
]

const brands = [
  "Acme",
  "Northwind",
  "Lumen",
  "Harbor",
  "Juniper",
  "Copperleaf",
  "Bramble",
  "Summit",
  "Oakridge",
  "Tidewater",
  "Kestrel",
  "Meadow",
  "Granite",
  "Willow",
  "Ember",
  "Solstice"
]
const adjectives = [
  "Classic",
  "Compact",
  "Deluxe",
  "Everyday",
  "Pro",
  "Travel",
  "Eco",
  "Ultra",
  "Vintage",
  "Cozy",
  "Modern",
  "Rugged",
  "Mini",
  "Premium",
  "Essential",
  "Smart"
]
const qualities = [
  "sturdy",
  "lightweight",
  "well made",
  "easy to clean",
  "thoughtfully designed",
  "great value",
  "durable",
  "beautifully finished"
]
const firstNames = [
  "Alex",
  "Sam",
  "Jordan",
  "Taylor",
  "Morgan",
  "Riley",
  "Casey",
  "Jamie",
  "Avery",
  "Quinn",
  "Robin",
  "Drew",
  "Priya",
  "Mateo",
  "Yuki",
  "Amara",
  "Lena",
  "Omar"
]
const lastNames = [
  "Rivera",
  "Chen",
  "Okafor",
  "Novak",
  "Larsen",
  "Patel",
  "Moreau",
  "Kim",
  "Silva",
  "Brennan",
  "Haddad",
  "Ito",
  "Fischer",
  "Mensah"
]

const titlesByRating: Record<number, ReadonlyArray<string>> = {
  1: ["Broke after a week", "Very disappointed", "Would not buy again"],
  2: ["Not great", "Below expectations", "Okay at best"],
  3: ["Does the job", "Average", "Fine for the price"],
  4: ["Really good", "Happy with it", "Solid choice"],
  5: ["Excellent!", "Love it", "Best purchase this year"]
}
const bodiesByRating: Record<number, ReadonlyArray<string>> = {
  1: ["Stopped working almost immediately and support was slow.", "The quality is much worse than the pictures suggest."],
  2: ["It works, but it feels cheap and the finish is rough.", "Smaller than I expected and a bit flimsy."],
  3: ["Nothing special, but it does what it says.", "Decent, though I expected a little more for the money."],
  4: ["Well built and easy to use. Minor quibbles only.", "Does everything I need; shipping was quick too."],
  5: ["Exceeded my expectations in every way.", "Fantastic quality. I bought a second one as a gift."]
}

export const slugify = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")

export const PRODUCTS_PER_CATEGORY = 10

export const shopBase = (seed: number): ShopBase => {
  const r = rng(seed, "shop")
  const products: Array<Product> = []
  const reviews: Record<string, Array<Review>> = {}
  const used = new Set<string>()
  for (const c of categorySpecs) {
    const nouns = r.shuffle(c.nouns).slice(0, PRODUCTS_PER_CATEGORY)
    for (const noun of nouns) {
      let name = ""
      do name = `${r.pick(brands)} ${r.pick(adjectives)} ${noun}`
      while (used.has(slugify(name)))
      used.add(slugify(name))
      const id = slugify(name)
      const dollars = r.int(c.price[0], c.price[1])
      const price = dollars * 100 + r.pick([0, 49, 95, 99])
      const q1 = r.pick(qualities)
      const q2 = r.pick(qualities.filter((q) => q !== q1))
      products.push({
        id,
        name,
        categoryId: c.id,
        price,
        description: `The ${name} is ${q1} and ${q2}, made by ${name.split(" ")[0]} for ${c.use}.`
      })
      // Products differ in quality, so ratings cluster per product rather than being uniform noise.
      const quality = r.int(1, 5)
      const count = r.int(0, 6)
      reviews[id] = Array.from({ length: count }, (_, i) => {
        const rating = Math.max(1, Math.min(5, quality + r.pick([-1, 0, 0, 1])))
        return {
          id: `${id}-r${i + 1}`,
          productId: id,
          author: `${r.pick(firstNames)} ${r.pick(lastNames)[0]}.`,
          rating,
          title: r.pick(titlesByRating[rating]!),
          body: r.pick(bodiesByRating[rating]!)
        }
      })
    }
  }
  const first = r.pick(firstNames)
  const last = r.pick(lastNames)
  return {
    seed,
    categories: categorySpecs.map(({ id, name, blurb }) => ({ id, name, blurb })),
    products,
    reviews,
    user: { name: `${first} ${last}`, email: `${first}.${last}@example.com`.toLowerCase() }
  }
}

export const shopInitial = (base: ShopBase): ShopState => ({
  user: { ...base.user },
  cart: [],
  wishlist: [],
  orders: [],
  reviews: []
})
