/**
 * `node tools/make-seed.mjs`: rebuilds seed/ — a sync server data folder with the password
 * "core-actual" and one budget, "Harbor Household" (4 accounts, 2 expense groups of
 * categories, 31 transactions in October and November 2026, December's budget amounts).
 * Starts the pack's sync server on a throwaway folder, bootstraps it, builds the budget with
 * `@actual-app/api` (`runImport` uploads it), stops the server and copies its files to seed/.
 * Run it after changing the data below; start.ts only copies seed/.
 */
import { spawn } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import * as api from "@actual-app/api"

const PACK = join(dirname(fileURLToPath(import.meta.url)), "..")
const PASSWORD = "core-actual"

const port = await new Promise((res) => {
  const s = createServer().listen(0, "127.0.0.1", () => {
    const p = s.address().port
    s.close(() => res(p))
  })
})
const work = mkdtempSync(join(tmpdir(), "actual-seed-"))
const data = join(work, "server")
mkdirSync(data)
const config = { port, hostname: "127.0.0.1", dataDir: data, serverFiles: join(data, "server-files"), userFiles: join(data, "user-files"), loginMethod: "password" }
writeFileSync(join(data, "config.json"), JSON.stringify(config))
const server = spawn("node", [join(PACK, "node_modules/@actual-app/sync-server/build/bin/actual-server.js"), "--config", join(data, "config.json")], {
  stdio: "ignore",
  env: { ...process.env, NODE_ENV: "production" }
})
const base = `http://127.0.0.1:${port}`
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${base}/`)).ok) break
  } catch {}
  if (i > 200) throw new Error("server did not start")
  await new Promise((r) => setTimeout(r, 50))
}
const boot = await (await fetch(`${base}/account/bootstrap`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ password: PASSWORD }) })).json()
if (boot.status !== "ok") throw new Error(`bootstrap: ${JSON.stringify(boot)}`)

await api.init({ dataDir: join(work, "client"), serverURL: base, password: PASSWORD })
mkdirSync(join(work, "client"), { recursive: true })
const cents = (x) => Math.round(x * 100)
await api.runImport("Harbor Household", async () => {
  const groups = await api.getCategoryGroups()
  const income = groups.find((g) => g.is_income)
  const incomeCat = income.categories[0].id
  const cat = {}
  const group = async (name, names) => {
    const id = await api.createCategoryGroup({ name, is_income: false })
    for (const n of names) cat[n] = await api.createCategory({ name: n, group_id: id })
  }
  await group("Usual Expenses", ["Groceries", "Rent", "Utilities", "Transport", "Health"])
  await group("Fun", ["Dining Out", "Hobbies", "Gifts"])
  cat.Income = incomeCat

  const acct = {}
  for (const name of ["Checking", "Savings", "Credit Card", "Cash"]) acct[name] = await api.createAccount({ name, offbudget: false }, 0)
  const tx = (date, payee, amount, category, notes) => ({ date, payee_name: payee, amount: cents(amount), category: cat[category], notes })
  await api.addTransactions(acct.Checking, [
    tx("2026-10-01", "Starting Balance", 2400, "Income"),
    tx("2026-10-02", "Harbor Rentals", -950, "Rent", "October rent"),
    tx("2026-10-04", "Corner Grocer", -62.35, "Groceries"),
    tx("2026-10-09", "City Power", -48.1, "Utilities", "electricity"),
    tx("2026-10-15", "Northwind Shipping", 1850, "Income", "salary"),
    tx("2026-10-18", "Corner Grocer", -71.2, "Groceries"),
    tx("2026-10-27", "Harbor Water Co", -22.4, "Utilities", "water bill"),
    tx("2026-11-02", "Harbor Rentals", -950, "Rent", "November rent"),
    tx("2026-11-05", "Corner Grocer", -58.9, "Groceries"),
    tx("2026-11-10", "City Power", -51.75, "Utilities", "electricity"),
    tx("2026-11-14", "Dr. Okafor Clinic", -35, "Health", "check-up"),
    tx("2026-11-15", "Northwind Shipping", 1850, "Income", "salary"),
    tx("2026-11-21", "Corner Grocer", -66.4, "Groceries")
  ])
  await api.addTransactions(acct.Savings, [
    tx("2026-10-01", "Starting Balance", 5000, "Income"),
    tx("2026-10-31", "Seabank Interest", 6.25, "Income", "interest"),
    tx("2026-11-30", "Seabank Interest", 6.31, "Income", "interest")
  ])
  await api.addTransactions(acct["Credit Card"], [
    tx("2026-10-06", "Lighthouse Cafe", -18.6, "Dining Out"),
    tx("2026-10-11", "Bayline Buses", -30, "Transport", "monthly pass"),
    tx("2026-10-20", "Marlow Books", -24.99, "Hobbies", "sea charts atlas"),
    tx("2026-10-25", "Lighthouse Cafe", -21.4, "Dining Out"),
    tx("2026-11-03", "Bayline Buses", -30, "Transport", "monthly pass"),
    tx("2026-11-08", "Gull Point Pharmacy", -12.8, "Health"),
    tx("2026-11-12", "Marlow Books", -15.5, "Gifts", "birthday book for Ana"),
    tx("2026-11-19", "Pier 9 Pizza", -27.3, "Dining Out"),
    tx("2026-11-26", "Kite & Kayak", -89, "Hobbies", "kayak paddle")
  ])
  await api.addTransactions(acct.Cash, [
    tx("2026-10-01", "Starting Balance", 150, "Income"),
    tx("2026-10-07", "Fish Market", -14.5, "Groceries"),
    tx("2026-10-22", "Harbor Ferry", -6, "Transport"),
    tx("2026-11-06", "Fish Market", -16.25, "Groceries"),
    tx("2026-11-17", "Harbor Ferry", -6, "Transport"),
    tx("2026-11-28", "Flower Stall", -12, "Gifts")
  ])
  for (const [name, amount] of [["Groceries", 300], ["Rent", 950], ["Utilities", 90], ["Transport", 40], ["Health", 50], ["Dining Out", 60], ["Hobbies", 50], ["Gifts", 30]]) {
    await api.setBudgetAmount("2026-12", cat[name], cents(amount))
  }
})
await api.sync()
await api.shutdown()
server.kill("SIGTERM")
await new Promise((r) => server.once("exit", r))
const seed = join(PACK, "seed")
rmSync(seed, { recursive: true, force: true })
mkdirSync(seed)
// .migrate records which server migrations ran: without it the server would run them again.
for (const name of [".migrate", "server-files", "user-files"]) cpSync(join(data, name), join(seed, name), { recursive: true })
rmSync(work, { recursive: true, force: true })
console.log(`seed/ rebuilt (server on port ${port} stopped)`)
