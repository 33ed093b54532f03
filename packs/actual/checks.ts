/**
 * What "done" means for each task of the actual pack: evaluate.ts applies these to the budget
 * read from the instance's sync server (tools/state.mjs) and to the agent's answer.
 * Amounts are integer cents, dates ISO (`2026-11-24`), as Actual stores them.
 */

export interface BudgetState {
  /** The budget file's name on the server (the file list's "Harbor Household"). */
  readonly budgetName: string
  readonly accounts: ReadonlyArray<{ name: string; offbudget: boolean; closed: boolean; balance: number }>
  readonly transactions: ReadonlyArray<{
    account: string
    date: string
    amount: number
    payee: string | null
    category: string | null
    notes: string | null
  }>
  readonly groups: ReadonlyArray<{ name: string; income: boolean; categories: ReadonlyArray<string> }>
  /** December 2026's budgeted amount per category name. */
  readonly budgeted: Readonly<Record<string, number>>
  readonly preferences: Readonly<Record<string, string | undefined>>
}

export interface Verdict {
  readonly pass: boolean
  readonly why: string
}

export type Check =
  | { readonly kind: "answer"; readonly judge: (state: undefined, answer: string) => Verdict }
  | { readonly kind: "state"; readonly judge: (state: BudgetState, answer: string) => Verdict }

const SEED_ACCOUNTS = ["Checking", "Savings", "Credit Card", "Cash"]
const SEED_GROUPS = ["Usual Expenses", "Fun"]

/** Trim, case, white space, wrapping quotes, a trailing full stop, a leading "the". */
export const normalise = (s: string): string =>
  s
    .trim()
    .replace(/^["'“‘]+|["'”’]+$/g, "")
    .replace(/\.$/, "")
    .replace(/\s+/g, " ")
    .replace(/^the /i, "")
    .toLowerCase()

/** An amount answer: "5,012.56", "$5012.56", "5012.56 dollars" all read 501256 cents. */
export const answerCents = (answer: string): number | undefined => {
  const m = /^[^\d-]*(-?[\d,]*\.?\d+)\s*[a-z$€£]*$/i.exec(answer.trim())
  if (!m) return undefined
  const n = Number(m[1]!.replace(/,/g, ""))
  return Number.isFinite(n) ? Math.round(n * 100) : undefined
}

const answerText = (accepted: ReadonlyArray<string>): Check => ({
  kind: "answer",
  judge: (_, answer) => {
    const ok = accepted.some((a) => normalise(a) === normalise(answer))
    return {
      pass: ok,
      why: ok ? `answer ${JSON.stringify(answer)}` : `answer ${JSON.stringify(answer)} is not ${JSON.stringify(accepted[0])}`
    }
  }
})

const answerAmount = (cents: number): Check => ({
  kind: "answer",
  judge: (_, answer) => {
    const got = answerCents(answer)
    const ok = got === cents
    return {
      pass: ok,
      why: ok ? `answer ${JSON.stringify(answer)}` : `answer ${JSON.stringify(answer)} is not ${(cents / 100).toFixed(2)}`
    }
  }
})

const verdict = (problems: ReadonlyArray<string>, ok: string): Verdict =>
  problems.length === 0 ? { pass: true, why: ok } : { pass: false, why: problems.join("; ") }

/** A new account `name` with `cents` as its balance, the seed's accounts untouched in name. */
const newAccount = (name: string, cents: number): Check => ({
  kind: "state",
  judge: (s) => {
    const a = s.accounts.find((x) => x.name === name)
    const problems: Array<string> = []
    if (!a) problems.push(`no account named ${JSON.stringify(name)} (accounts: ${s.accounts.map((x) => x.name).join(", ")})`)
    else {
      if (a.balance !== cents) problems.push(`${name}'s balance is ${(a.balance / 100).toFixed(2)}, not ${(cents / 100).toFixed(2)}`)
      if (a.offbudget) problems.push(`${name} is off budget`)
      if (a.closed) problems.push(`${name} is closed`)
    }
    for (const seed of SEED_ACCOUNTS) if (!s.accounts.some((x) => x.name === seed)) problems.push(`account ${seed} is gone`)
    return verdict(problems, `account ${name} with ${(cents / 100).toFixed(2)}`)
  }
})

/** Exactly one new transaction like `want` in `account` (the seed has none on that day for that payee). */
const newTransaction = (want: { account: string; date: string; payee: string; category: string; amount: number }): Check => ({
  kind: "state",
  judge: (s) => {
    const sameDay = s.transactions.filter((t) => t.account === want.account && t.date === want.date)
    const match = sameDay.filter((t) => t.payee === want.payee && t.category === want.category && t.amount === want.amount)
    if (match.length === 1) return { pass: true, why: `${want.account}: ${want.date} ${want.payee} ${want.category} ${want.amount / 100}` }
    if (match.length > 1) return { pass: false, why: `${match.length} such transactions in ${want.account}, not one` }
    const seen = sameDay.map((t) => `${t.payee ?? "(no payee)"} / ${t.category ?? "(no category)"} / ${(t.amount / 100).toFixed(2)}`)
    return {
      pass: false,
      why: `no transaction in ${want.account} on ${want.date} for ${want.payee}, ${want.category}, ${(want.amount / 100).toFixed(2)}${seen.length ? ` (that day: ${seen.join(", ")})` : ""}`
    }
  }
})

/** December 2026 budget amounts of the seed, in cents. */
export const SEED_BUDGET: Readonly<Record<string, number>> = {
  Groceries: 30000,
  Rent: 95000,
  Utilities: 9000,
  Transport: 4000,
  Health: 5000,
  "Dining Out": 6000,
  Hobbies: 5000,
  Gifts: 3000
}
/** December's budget is the seed's but for `changed` (a transfer between two categories). */
const transferred = (changed: Readonly<Record<string, number>>, ok: string): Check => ({
  kind: "state",
  judge: (s) => {
    const want: Record<string, number> = { ...SEED_BUDGET, ...changed }
    const wrong = Object.entries(want)
      .filter(([k, v]) => s.budgeted[k] !== v)
      .map(([k, v]) => `${k} is ${((s.budgeted[k] ?? 0) / 100).toFixed(2)}, not ${(v / 100).toFixed(2)}`)
    return verdict(wrong.length ? [`December's budget: ${wrong.join(", ")}`] : [], ok)
  }
})

const preference = (key: string, want: string, label: string): Check => ({
  kind: "state",
  judge: (s) => {
    const got = s.preferences[key]
    return got === want
      ? { pass: true, why: `${label}: ${key} = ${want}` }
      : { pass: false, why: `${label}: ${key} is ${got === undefined ? "unset" : JSON.stringify(got)}, not ${JSON.stringify(want)}` }
  }
})

export const CHECKS: Readonly<Record<string, Check>> = {
  "t01-savings-balance": answerAmount(501256),
  "t02-credit-card-last-payee": answerText(["Kite & Kayak", "Kite and Kayak"]),
  "t03-add-holiday-account": newAccount("Holiday Fund", 25000),
  "t04-add-pharmacy-transaction": newTransaction({
    account: "Checking",
    date: "2026-11-24",
    payee: "Gull Point Pharmacy",
    category: "Health",
    amount: -1840
  }),
  "t05-rename-budget": {
    kind: "state",
    judge: (s) =>
      s.budgetName === "Harbor Family Budget"
        ? { pass: true, why: "the budget file is named Harbor Family Budget" }
        : { pass: false, why: `the budget file is named ${JSON.stringify(s.budgetName)}, not "Harbor Family Budget"` }
  },
  "t06-add-group-pets": {
    kind: "state",
    judge: (s) => {
      const problems: Array<string> = []
      if (!s.groups.some((g) => g.name === "Pets" && !g.income))
        problems.push(`no expense category group named "Pets" (groups: ${s.groups.map((g) => g.name).join(", ")})`)
      for (const g of SEED_GROUPS) if (!s.groups.some((x) => x.name === g)) problems.push(`group ${g} is gone`)
      return verdict(problems, "category group Pets")
    }
  },
  "t07-transfer-groceries-gifts": transferred({ Groceries: 28000, Gifts: 5000 }, "20.00 moved from Groceries to Gifts"),
  "t08-hide-decimals": preference("hideFraction", "true", "Hide decimal places"),
  "t09-date-format-iso": preference("dateFormat", "yyyy-MM-dd", "date format"),
  "t10-search-atlas-payee": answerText(["Marlow Books"]),
  "h01-cash-balance": answerAmount(9525),
  "h02-add-emergency-account": newAccount("Emergency Fund", 100000),
  "h03-add-fish-market-transaction": newTransaction({
    account: "Cash",
    date: "2026-11-30",
    payee: "Fish Market",
    category: "Groceries",
    amount: -975
  }),
  "h04-transfer-dining-hobbies": transferred({ "Dining Out": 5000, Hobbies: 6000 }, "10.00 moved from Dining Out to Hobbies")
}
