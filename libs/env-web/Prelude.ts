/**
 * Playing an episode's `Prelude` (Environment.ts: an app's log-in) on its page, before the
 * start page opens. The page is read and acted on with the episode's own extraction and
 * actions, so a target is found as a policy would find it; nothing is stored, and the
 * caller observes only what comes after.
 *
 * @example
 * yield* playPrelude(prelude, { page, origins, timeoutMs: 5000, settle: () => settle(page) })
 * await page.goto(startUrl) // then the episode's first observation
 */
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { perform } from "./Actions.ts"
import { extractInPage, interactableSelector } from "./Elements.ts"
import { InfraError, maxWaitMs, oneLine } from "@core/environment"
import type { ElementInfo, Prelude, PreludePage, ReadSecret } from "@core/environment"
import { isAllowed, refusal } from "./Origins.ts"

export interface PreludeContext {
  readonly page: Page
  /** The episode's origins: the prelude reaches nothing else either. */
  readonly origins: ReadonlyArray<string>
  readonly timeoutMs: number
  readonly readSecret?: ReadSecret
  /** Gets each value the log-in typed by reference: the episode's, or recording's, secrets (Scrub.ts). */
  readonly typedSecrets?: Set<string>
  /** Waits until the page is quiet after a navigation or an action, as the episode would. */
  readonly settle: () => Promise<void>
}

/** An action's outcome, and whether it got as far as the page should be settled. */
interface Acted {
  readonly error: string | null
  readonly settle: boolean
}

/** The prelude's own element ids, so the episode's are numbered as if it had not been played. */
interface Ids {
  nextId: number
  readonly issued: Set<string>
}

const messageOf = (cause: unknown): string => oneLine((cause instanceof Error ? cause.message : String(cause)).split("\n")[0] ?? "")

/** A navigation racing the read destroys the document: wait for the next one and read again. */
const read = async (ctx: PreludeContext, ids: Ids): Promise<ReadonlyArray<ElementInfo>> => {
  for (let attempt = 0; ; attempt++) {
    try {
      const extracted = await ctx.page.evaluate(extractInPage, { selector: interactableSelector, nextId: ids.nextId })
      ids.nextId = extracted.nextId
      for (const e of extracted.elements) ids.issued.add(e.id)
      return extracted.elements
    } catch (cause) {
      if (attempt >= 2 || !/context was destroyed|navigat/i.test(messageOf(cause))) throw cause
      await ctx.settle()
    }
  }
}

/** Runs in the page: a start page in the same document must number its elements afresh. */
const forgetIdsInPage = (): void => {
  for (const el of (globalThis as any).document.querySelectorAll("[data-core-id]")) el.removeAttribute("data-core-id")
}

/** Opens the prelude's page and plays it; any failure is one line and the episode must not start. */
export const playPrelude = (prelude: Prelude, ctx: PreludeContext): Effect.Effect<void, InfraError> =>
  Effect.gen(function* () {
    const fail = (what: string) => new InfraError({ reason: `before the episode: ${what}` })
    if (!isAllowed(prelude.startUrl, ctx.origins)) return yield* fail(refusal(prelude.startUrl, ctx.origins))
    yield* Effect.tryPromise({
      try: async () => {
        await ctx.page.goto(prelude.startUrl, { timeout: ctx.timeoutMs, waitUntil: "domcontentloaded" })
        await ctx.settle()
      },
      catch: (cause) => fail(`cannot open ${prelude.startUrl}: ${messageOf(cause)}`)
    })
    const secrets = {
      ...(ctx.readSecret === undefined ? {} : { readSecret: ctx.readSecret }),
      ...(ctx.typedSecrets === undefined ? {} : { typedSecrets: ctx.typedSecrets })
    }
    const ids: Ids = { nextId: 1, issued: new Set() }
    const page: PreludePage = {
      elements: Effect.tryPromise({ try: () => read(ctx, ids), catch: (cause) => fail(`cannot read the page: ${messageOf(cause)}`) }),
      act: (action) =>
        Effect.promise(async (): Promise<Acted> => {
          try {
            const error = await perform(ctx.page, action, {
              timeoutMs: ctx.timeoutMs,
              issued: ids.issued,
              origins: ctx.origins,
              ...secrets
            })
            return { error, settle: true }
          } catch (cause) {
            return { error: `${action.kind} failed: ${messageOf(cause)}`, settle: false }
          }
        }).pipe(
          // Backstop for calls without their own timeout, as the episode's steps have.
          Effect.timeoutOrElse({
            duration: ctx.timeoutMs + (action.kind === "wait" ? Math.min(action.ms, maxWaitMs) : 1000),
            orElse: () => Effect.succeed<Acted>({ error: `${action.kind} timed out after ${ctx.timeoutMs} ms`, settle: false })
          }),
          // Settling bounds itself (an app's pageSettleMs can exceed the backstop): after it, as an episode's step settles.
          Effect.flatMap((acted) => (acted.settle ? Effect.as(Effect.promise(ctx.settle), acted.error) : Effect.succeed(acted.error)))
        )
    }
    yield* prelude.play(page)
    yield* Effect.promise(() => ctx.page.evaluate(forgetIdsInPage).catch(() => undefined))
  })
