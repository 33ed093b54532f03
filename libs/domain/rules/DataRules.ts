/**
 * The data rules a run's graph, verification, extrapolation and dataset deciders follow
 * (`run.dataRules`), each named with the version that brought it on. Version 2: paths are
 * identified by their label functions (form fields in any order are one path), a verdict
 * refuses a goal the trajectory undid before its claim, pseudo-demos are pruned to what
 * their task needs, and preference pairs prefer only credited steps. Version 3 adds
 * `meta.origin` to sft records (a demo, a verified trajectory, or a pseudo-demo with its
 * parent and generator). Version 4: a path that ends with an answer is reached by its
 * answer alone (expansion's terminal key steps), so an answer read on another page than
 * the demo's can add its path. Version 5: expansion refuses a path whose extra key steps
 * changed nothing. Version 6: a partial trajectory that solved its task by expansion's rule
 * and that a path added in its round accepts counts as a pass (`TrajectoryPromoted`).
 * Version 7: expansion refuses a path whose trajectory never enters a value the task's demo
 * typed or picked from its instruction. Version 8: a verdict refuses a match whose goal
 * was redone before the claim (its fields filled with other values, its control pressed on another page).
 * Version 9: a demo's graph also holds a goal-state path (its changes, goal and claim, on their pages).
 * Version 10: that path keeps a button that chose (Book this room) and leaves out what a
 * query carried away (a filter's sort, a search's dates), and a page's fields may hold at one step.
 * Version 11: on that path a fill the app showed again later is read where it was shown (Echo.ts),
 * and the filters a later choice survived are the way (SurvivedFilters.ts).
 * Version 12: the button that opened a form saved under the name it typed is the way (NamedSave.ts). Runs recorded without the key used version 1, and
 * replay decides each run by its own.
 *
 * @example
 * const rules = dataRulesAt(config["run.dataRules"]) // version 1's for runs before versions
 * if (rules.dropsNoOpPaths) … // refuse a path whose extra steps did nothing
 */
import { axis, rulesAt, type RuleSet, type VersionOf } from "./Versioned.ts"

export const DATA_RULES = axis("data rules", "run.dataRules", ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"], "12", {
  /** Paths are told apart by their label functions, and a node with the same LF and kind is that node. */
  pathsByMeaning: "2",
  /** A verdict reads a page's form fields in any order and refuses a goal the trajectory undid before its claim. */
  commutesAndRefusesUndone: "2",
  /** A pass records the passing path's LFs and the steps they held at (`matched`), for credit. */
  recordsMatched: "2",
  /** A pseudo-demo keeps only the steps its task needs (PseudoDemo.ts), not a prefix of its parent. */
  prunesPseudoDemos: "2",
  /** A sub-goal reached on the way is an augmentation of what the run did, whatever its verdict. */
  subGoalsAugment: "2",
  /** Preference pairs prefer only a pass's credited steps. */
  creditsPreferences: "2",
  /** An sft record says where its steps came from (`meta.origin`). */
  sftOrigin: "3",
  /** A path that ends with an answer is reached by its answer alone (Expansion `answerAlone`). */
  answerAlone: "4",
  /** Expansion refuses a path whose extra key steps changed nothing (Expansion `noOpSteps`). */
  dropsNoOpPaths: "5",
  /**
   * A partial trajectory that solved its task by expansion's rule, and that a path its round
   * added accepts, counts as a pass (`TrajectoryPromoted`) — the run that taught the graph a
   * way is itself data of that way, as the method's expansion intends.
   */
  promotesSolvedPartials: "6",
  /**
   * Expansion refuses a path whose trajectory never enters a value the task's demo typed or
   * picked from its instruction (`demoValues`, `valuesLeftOut`). On a budget app an explorer
   * that clicked "Add" on an empty entry row met the terminal steps of the demo's path, added
   * a path with no typing in it, and was promoted: the one false pass of its run.
   */
  refusesPathsWithoutValues: "7",
  /**
   * A verdict refuses a match whose goal was redone before its claim (Undo.ts
   * `acceptUnlessRedone`): its matched fields given other values (the account's email changed
   * to the task's address, then to another), its goal control pressed again on another page
   * (the same post published on a second board), or a control pressed again where it was,
   * changing the page again ("Add to cart" twice). Each passed every LF where the first
   * doing was: false passes of the hard-negative suite (`eval corruptions`).
   */
  refusesRedoneGoals: "8",
  /**
   * Each demo's graph gets a second path of goal-state evidence (GoalState.ts): the demo's
   * changes, its goal and its claim without the search and links that found them, each held
   * on a page of the demo's pattern. Most right ways the demo's LFs refused left its path at
   * the first step (browsing where it searched) and reached the same outcome.
   */
  addsGoalStatePaths: "9",
  /**
   * A goal-state path is read by queries (GoalState.ts, `byQueries`): a button that led to
   * another page without carrying the page's entries there chose the outcome (Book this
   * room, Select this flight) and is kept; a field whose value a query carried to the next
   * page (a filter's sort, a search's dates) is the way, unless a step kept after it stood on
   * a page still carrying the value that its pattern does not check. The top post opened by
   * browsing its board sorted, the hotel's stay set on the hotel's own page: both refused by
   * version 9's path, whose search-form fields were held to the search page.
   */
  goalStateByQueries: "10",
  /**
   * A page's form fields may hold at one step (StrategyGraph.ts, `atOnce`): a "Fill in from
   * saved traveller" button filled the name, email and birth date a demo typed one by one,
   * and synthesis 8 lets a filled field hold by what it shows.
   */
  fieldsFilledAtOnce: "10",
  /**
   * A goal-state path reads a fill the demo saw again later (Echo.ts) where it was seen: the
   * fill's node goes after the kept steps before its echo, and holds on the echo's page as
   * well as its own. The quantity typed on a product's page and shown in the cart is then
   * met by a way that added the product first and set the quantity in the cart.
   */
  goalStateByEchoes: "11",
  /**
   * A goal-state path leaves out the filters a later choice survived (SurvivedFilters.ts:
   * the unfiltered list already showed the control), with the button that applied them, and
   * holds the choice to the unfiltered list (`GraphPath.anchors`). The cheapest nonstop
   * flight selected by scanning the unfiltered results is then the demo's outcome, which
   * filtered them first.
   */
  filtersSurvived: "11",
  /**
   * A goal-state path leaves out the button that opened a form whose save led to a page the
   * form's typing named ("new tiddler", then "Visitor Log" typed and saved to
   * `/#Visitor%20Log`), and holds the form's steps on any page (NamedSave.ts): the save's
   * LF says which record. The record opened at its missing page and edited there is then
   * the demo's outcome.
   */
  namedSaves: "12"
})

export type DataRulesVersion = VersionOf<typeof DATA_RULES>
export type DataRuleSet = RuleSet<typeof DATA_RULES>

/** The data rules of a recorded version (anything else, a run from before versions, is version 1). */
export const dataRulesAt = (recorded: unknown): DataRuleSet => rulesAt(DATA_RULES, recorded)
