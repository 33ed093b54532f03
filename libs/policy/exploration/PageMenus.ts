/**
 * The page's own menus (exploration 12, `opensMenus`): what is not in sight may be behind
 * one, as a budget app's settings sit behind its sidebar's "More". Where nothing on the
 * page names a word of the instruction, an unopened page menu is the explorer's likeliest
 * click.
 *
 * @example
 * pageMenus([button("More"), button("Menu"), button("Menu")]) // the id of "More" only: a repeated "Menu" is each row's own
 */
import type { PolicyElement } from "../PolicyView.ts"
import { WORD, labelOf, overlap } from "./InstructionTerms.ts"
import type { Terms } from "./InstructionTerms.ts"
import { normalizeText } from "@core/domain"

/** Buttons that open a menu by their name. */
const MENU_NAME = /^\s*(?:more|more options|more actions|options|actions|…|⋯|⋮|\.\.\.)\s*$|\bmenu\b/i
const isMenu = (e: PolicyElement): boolean => e.role === "button" && MENU_NAME.test(e.name)
/** A menu's pull where the page shows nothing the instruction names: two words' worth, so it leads without being certain. */
export const MENU = 2 * WORD

/**
 * The page's own menus, by element id: menu buttons whose name appears once. A name repeated
 * down a table ("Menu" beside each month) is an item's menu, which acts on that item.
 */
export const pageMenus = (elements: ReadonlyArray<PolicyElement>): ReadonlySet<string> => {
  const menus = elements.filter((e) => e.visible && isMenu(e))
  const key = (e: PolicyElement) => normalizeText(e.name)
  const seen = new Map<string, number>()
  for (const e of menus) seen.set(key(e), (seen.get(key(e)) ?? 0) + 1)
  return new Set(menus.filter((e) => seen.get(key(e)) === 1).map((e) => e.id))
}

/** Does any element on the page, menus aside, show a word or phrase of the instruction? */
export const pageNamesTask = (elements: ReadonlyArray<PolicyElement>, terms: Terms): boolean =>
  elements.some((e) => e.visible && e.enabled && !isMenu(e) && overlap(terms, labelOf(e)) >= WORD)
