"""JavaScript and TypeScript names bound where test suites and components bind them: in
destructuring patterns, in closures side by side (`it(() => { const f = ... })`), and in the
closure around a named function. A name bound there hides the same name outside; a function
bound there is what calls in that closure reach."""

from indexers.extract import extract_file
from indexers.languages import language_for_path
from indexers.resolve import SymbolTable, resolve_all


def _calls(path: str, source: str) -> dict[tuple[str, str], tuple[str, float]]:
    ext = extract_file(path, source.encode(), language_for_path(path).name)
    return {(e.src, e.dst): (e.reason, e.confidence) for e in resolve_all(SymbolTable([ext]))[0] if e.type == "CALLS"}


def _confident(calls: dict) -> set[tuple[str, str]]:
    return {pair for pair, (_, confidence) in calls.items() if confidence == 1.0}


def test_destructured_names_hide_the_functions_of_the_same_name():
    calls = _calls("m.ts", """\
function delay(ms: number) { return ms }
function increment(n: number) { return n }
function getState() { return 0 }
export function effect(action: unknown, { delay }: { delay: (n: number) => void }) { delay(10) }
export function counter() {
  const [increment] = useMutation()
  increment(1)
}
export function renamed({ a: getState, b = 1 }: any, ...rest: any[]) { getState() }
export function loop(items: any[]) { for (const { delay } of items) { delay(1) } }
export function plain() { delay(1) }
""")
    assert ("m.ts#effect", "m.ts#delay") not in calls
    assert ("m.ts#counter", "m.ts#increment") not in calls
    assert ("m.ts#renamed", "m.ts#getState") not in calls
    assert ("m.ts#loop", "m.ts#delay") not in calls
    assert calls[("m.ts#plain", "m.ts#delay")] == ("scope", 1.0)


def test_javascript_destructured_parameters_and_require_destructuring():
    calls = _calls("m.js", """\
const { format } = require("./util")
function check() {}
function run({ check }) { check(); format() }
""")
    assert ("m.js#run", "m.js#check") not in calls
    assert not any(dst == "m.js#check" for _, dst in calls)


def test_functions_of_one_name_in_closures_side_by_side():
    calls = _calls("m.test.ts", """\
describe('requests', () => {
  it('a', async () => {
    const doRequest = async () => 1
    await doRequest()
  })
  it('b', async () => {
    const doRequest = async () => 2
    await doRequest()
  })
})
export function outer() {
  it('c', () => { const f = () => 1; f() })
  it('d', () => { const f = () => 2; f() })
}
""")
    assert _confident(calls) >= {("m.test.ts", "m.test.ts#doRequest"), ("m.test.ts", "m.test.ts#doRequest@2"),
                                 ("m.test.ts#outer", "m.test.ts#outer.f"), ("m.test.ts#outer", "m.test.ts#outer.f@2")}
    assert not any(reason == "candidate" for reason, _ in calls.values())


def test_a_reassigned_function_variable_stays_a_candidate():
    calls = _calls("m.test.ts", """\
describe('x', () => {
  let restore: () => void = () => {}
  beforeEach(() => { restore = mockConsole() })
  afterEach(() => { restore() })
})
""")
    assert calls[("m.test.ts", "m.test.ts#restore")][0] == "candidate"
    assert calls[("m.test.ts", "m.test.ts#restore")][1] < 1.0


def test_a_closure_local_hides_a_module_name_in_a_function_defined_in_the_closure():
    calls = _calls("m.test.ts", """\
const baseQuery = () => 0
test('headers', () => {
  const baseQuery = fetchBaseQuery()
  const doRequest = async () => baseQuery()
  function Component() { baseQuery() }
})
export function elsewhere() { baseQuery() }
""")
    assert ("m.test.ts#doRequest", "m.test.ts#baseQuery") not in _confident(calls)
    assert ("m.test.ts#Component", "m.test.ts#baseQuery") not in _confident(calls)
    assert calls[("m.test.ts#elsewhere", "m.test.ts#baseQuery")][1] == 1.0


def test_members_a_type_maps_from_an_object_literal_are_candidates():
    # `createSlice({ reducers: { increment(state) {} } })`: `slice.actions.increment` is typed by a
    # mapped type over the literal's keys; the file's own functions of that name are candidates
    calls = _calls("m.ts", """\
declare function createSlice<R>(options: { reducers: R }): { actions: { [K in keyof R]: () => void } }
describe('slice', () => {
  const slice = createSlice({ reducers: { increment(state: number) {}, decrement(state: number) {} } })
  const { decrement } = slice.actions
  it('runs', () => {
    slice.actions.increment()
    decrement()
  })
})
""")
    assert calls[("m.ts", "m.ts#increment")][0] == "candidate"
    assert calls[("m.ts", "m.ts#decrement")][0] == "candidate"
