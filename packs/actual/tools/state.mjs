/**
 * `node tools/state.mjs <server url> <scratch dir>`: prints the budget file as
 * the sync server holds it, as one JSON object on stdout — accounts (with balances),
 * transactions (payee and category by name), category groups and categories, December 2026's
 * budgeted amounts and the synced preferences. Downloads the budget with `@actual-app/api`
 * into the scratch dir, so it reads exactly what the browser has synced to the server.
 * Amounts are in cents, as Actual stores them. evaluate.ts runs it under node: the API needs
 * better-sqlite3, a node addon.
 */
import * as api from "@actual-app/api"

const [serverURL, dataDir] = process.argv.slice(2)
const log = console.log
console.log = () => undefined // the API logs its sync progress on stdout
const PASSWORD = "core-actual"
await api.init({ dataDir, serverURL, password: PASSWORD, verbose: false })
// The server holds one budget file (renaming it is a task, so it is not found by name).
const remote = (await api.getBudgets()).filter((b) => b.groupId && b.state === "remote")
if (remote.length !== 1) throw new Error(`expected one budget file on the server, found ${remote.length}`)
const budget = remote[0]
await api.downloadBudget(budget.groupId)
const accounts = await api.getAccounts()
const groups = await api.getCategoryGroups()
const categories = new Map(groups.flatMap((g) => g.categories.map((c) => [c.id, c.name])))
const payees = new Map((await api.getPayees()).map((p) => [p.id, p.name]))
const transactions = []
const accountsOut = []
for (const a of accounts) {
  accountsOut.push({ name: a.name, offbudget: !!a.offbudget, closed: !!a.closed, balance: await api.getAccountBalance(a.id) })
  for (const t of await api.getTransactions(a.id, "1970-01-01", "2100-12-31")) {
    transactions.push({
      account: a.name,
      date: t.date,
      amount: t.amount,
      payee: payees.get(t.payee) ?? null,
      category: categories.get(t.category) ?? null,
      notes: t.notes ?? null,
      cleared: !!t.cleared
    })
  }
}
const month = await api.getBudgetMonth("2026-12")
const budgeted = {}
for (const g of month.categoryGroups) for (const c of g.categories) budgeted[c.name] = c.budgeted
const out = {
  budgetName: budget.name,
  accounts: accountsOut,
  transactions,
  groups: groups.map((g) => ({ name: g.name, income: !!g.is_income, categories: g.categories.map((c) => c.name) })),
  budgeted,
  preferences: await api.getPreferences()
}
await api.shutdown()
log(JSON.stringify(out))
