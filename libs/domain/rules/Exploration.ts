/**
 * The exploration policy's versions (`run.exploration`), each rule named with the version
 * that brought it on. The policy's versions: a run keeps the one it recorded, so its episodes replay with the
 * same actions from the same draws. 1 acts on single elements; 2 also fills a form with the
 * instruction's values and submits it (FormFilling.ts), drawing once more where a form fits;
 * 3 also answers a question with the value the page shows for it (PageAnswer.ts), and
 * stops to answer wherever the page shows one. Draws are the same as version 2's. 4 also
 * sets a sort select to the order the instruction asks for (SortOrder.ts: "the cheapest"
 * picks "Price: low to high"), and never clicks a select: a click opens no option in a
 * recorded episode, so it was a step spent on nothing. 5 also never chooses an element
 * whose link or form leaves the app's origins (`offsite`), and an episode of a task with
 * label functions ends `complete` once the trajectory so far satisfies a path of the task's
 * strategy graph (the rollout's check, recorded with the trajectory). 6 also never says
 * `complete` for a task that asks for a change before the episode has made one (typed,
 * picked, pressed a key, toggled: ChangeAsked.ts), and reads no function word as a person
 * ("arrive by the boat" names nobody: PageAnswer.ts), and does not click a link again while
 * on the page its last click led to (an explorer clicked the open "Kestrel Station" four
 * times in a row: the link that names the instruction's quoted phrase outscores the rest).
 * 7 also reads without writing: a task that asks for no change (ChangeAsked.ts) types only
 * into search fields and clicks no control named for a change ("Edit this tiddler", "new"
 * is no verb), and where no element on the page shows the instruction's quoted subject,
 * typing it into a search field scores as if the field showed it (an explorer asked to
 * open "Storm Protocol" from a page that does not link it typed the name into a new
 * tiddler's body instead of the sidebar's search). 8 also reads an amount as one word
 * ("20.00" meets "20.00", not every "x.00" on a budget page). 9 also types the value a
 * change ends with, quoted right after "to": the first quoted phrase of "Rename the budget
 * "Harbor Household" to "Harbor Family Budget"" is the name the field already holds, so
 * version 8 had nothing to type there. 10 also never chooses an element marked `covered`
 * (outside an open modal, or under another element): on a budget app, once "Add account" opened
 * its dialog, explorers spent the rest of their budget on clicks behind it, each timing out.
 * 11 also keeps the session: it never clicks a control that logs out ("Log out", "Sign
 * out"). The pack's log-in is what every task starts from; a wiki's explorer that logged
 * out was observed on a page with no elements, and a budget app's on its log-in screen.
 * 12 also fills a form as its labels read: a field takes the value whose nearest cue word
 * is a word of its label ("a starting balance of 250.00" fills "Balance:", where 11 read
 * the cue as "of"), an amount is one value ("250.00", not 250 and 00), a date written
 * with slashes is typed as written into a field that shows dates that way, and the
 * button that submits is the first after the fields that does not go back, cancel or
 * close: a budget app's account dialog puts "Back" before "Create", and 11 pressed "Back".
 * It also looks in menus: where nothing on the page names a word of the instruction, an
 * unopened "More" or "… menu" button scores as two shared words (a budget app's settings
 * sit behind its sidebar's "More", which 11 found about once in fifty draws). It reads a
 * code whole ("YYYY-MM-DD" is a phrase, so "DD.MM.YYYY" no longer scores alike), weighs a
 * label that says nothing the instruction does not ("Settings", "Add group") one word
 * more, and never clicks again the control its last step clicked: on a budget app, a
 * second click on the file name that had just opened its menu closed it again.
 * 13 also presses Enter in a form's last field where the form's submit button is the
 * control the episode clicked just before its fields: that button opened the field, and
 * a budget app took a second click on "Add group" as a commit its demo never made.
 * 14 also compares what a list shows (ListComparison.ts): for "the cheapest", "the
 * highest-scored" or "the latest", the link of the entry whose price, score or date the
 * order picks scores as a quoted phrase, and a question asking that value is answered with
 * it (an explorer asked for the lowest nightly price answered the first price it read).
 * 15 also starts later-node explorers after a button that changed the app and stayed on its
 * page (an upvote, "Add to cart", a row's "Add"), not only where the demo reached another
 * page: from there, the app holds the change, and a detour (the cart, the checkout, the
 * record's own page) starts from what the demo made. A typed value, a radio or a checkbox
 * is no start: halfway through a form (or a filter) is the page the start-state explorers
 * already see. Such a button's node comes before the page changes: with one later
 * explorer a round, the first two rounds of 14 never reached a change late in the demo.
 *
 * @example
 * const rules = explorationRulesAt(config["run.exploration"]) // version 1's for runs before versions
 * if (rules.avoidsOffsite) elements = elements.filter((e) => e.offsite !== true)
 */
import { axis, rulesAt, type RuleSet, type VersionOf } from "./Versioned.ts"

export const EXPLORATION = axis(
  "exploration",
  "run.exploration",
  ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15"],
  "15",
  {
    /** Fill forms with the instruction's values. */
    fillsForms: "2",
    /** Read answers off the page. */
    readsAnswers: "3",
    /** Start later-node explorers only after a page change. */
    startsAfterPageChange: "3",
    /** Set sort selects and never click a select. */
    setsSortOrders: "4",
    /** Skip elements that lead off the app's origins. */
    avoidsOffsite: "5",
    /** End an episode once its trajectory satisfies a path of the task's graph. */
    endsOnSatisfiedPath: "5",
    /** Keep a task that asks for a change from `complete` until the episode made one. */
    completesAfterChange: "6",
    /** Read no function word ("the", "a", "his") as a person. */
    readsNamesNotWords: "6",
    /** Leave out a link whose last click led to the page the episode is on. */
    skipsLinksHere: "6",
    /** Keep a task that asks for no change to search fields and away from change controls, and look its quoted subject up. */
    readsWithoutWriting: "7",
    /** Read an amount ("20.00", "1,250.50") as one word, not as its digits. */
    readsAmountsWhole: "8",
    /** Type the value a change ends with, quoted after "to". */
    typesNewValues: "9",
    /** Leave out elements a click cannot reach, `covered`. */
    skipsCovered: "10",
    /** Leave alone the controls that log out. */
    keepsSession: "11",
    /** Fill a form as its labels read: cue words, whole amounts, dates as the field writes them, and a submit that does not go back. */
    fillsAsLabelled: "12",
    /** Look in an unopened menu where the page shows nothing the instruction names. */
    opensMenus: "12",
    /** Read "YYYY-MM-DD" as a phrase and weigh a label made only of the instruction's words one word more. */
    readsCodesWhole: "12",
    /** Leave out the control its last step clicked. */
    skipsRepeatClicks: "12",
    /** Press Enter in a form's last field when its submit button is the control that opened the form. */
    entersWhenOpened: "13",
    /** Pick a list's entry by comparing the values it shows, for "the cheapest", "the highest-scored", "the latest". */
    comparesListValues: "14",
    /** Start later-node explorers also after a button that changed the app in place (an upvote, "Add to cart"), those first. */
    startsAfterStateChange: "15"
  }
)

export type ExplorationVersion = VersionOf<typeof EXPLORATION>
export type ExplorationRules = RuleSet<typeof EXPLORATION>

/** The exploration rules of a recorded version (anything else, a run from before versions, is version 1). */
export const explorationRulesAt = (recorded: unknown): ExplorationRules => rulesAt(EXPLORATION, recorded)
