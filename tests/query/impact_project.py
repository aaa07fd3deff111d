"""A small project in five languages, indexed for real, for impact and the class hierarchy.

`pkg/core.py` has a class hierarchy (Base <- Child <- GrandChild, `run` overridden) and a
helper called from a method and from a test; Go, Rust, TypeScript and Java each have a
function and a test calling it where their conventions put tests. `pkg/many.py` has a hub,
called by `HUB_CALLERS` functions, each called by a test.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from graphsvc.graph.driver import get_graph, reset_graph
from graphsvc.indexing.pipeline import index_symbols
from graphsvc.indexing.workspaces import drop_workspace
from graphsvc.settings import reload_settings

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": """\
class Base:
    def run(self):
        return helper()


class Child(Base):
    def run(self):
        return super().run() + 1


class GrandChild(Child):
    pass


def helper():
    return 1


def use():
    return Child().run()
""",
    "tests/test_core.py": """\
from pkg.core import helper, use


def test_use():
    assert use() == 2


def test_helper():
    assert helper() == 1
""",
    "lib/calc.go": "package lib\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
    "lib/calc_test.go": """\
package lib

import "testing"

func TestAdd(t *testing.T) {
\tif Add(1, 2) != 3 {
\t\tt.Fail()
\t}
}
""",
    "crate/src/lib.rs": """\
pub fn double(x: i32) -> i32 {
    x * 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles() {
        let y = double(2);
        assert_eq!(y, 4);
    }
}
""",
    "web/math.ts": "export function square(x: number): number {\n  return x * x;\n}\n",
    "web/math.test.ts": """\
import { square } from "./math";

export function checkSquare(): boolean {
  return square(2) === 4;
}
""",
    "jv/src/main/java/demo/Calc.java": """\
package demo;

public class Calc {
    public static int triple(int x) {
        return x * 3;
    }
}
""",
    "jv/src/test/java/demo/CalcTest.java": """\
package demo;

public class CalcTest {
    public void testTriple() {
        int y = Calc.triple(2);
    }
}
""",
}


HUB_CALLERS = 40
FILES["pkg/many.py"] = "def hub_function_called_from_everywhere():\n    return 0\n" + "".join(
    f"\n\ndef caller_number_{i}_of_the_hub():\n    return hub_function_called_from_everywhere()\n"
    for i in range(HUB_CALLERS)
)
FILES["tests/test_many.py"] = "from pkg import many\n" + "".join(
    f"\n\ndef test_caller_number_{i}_of_the_hub():\n    assert many.caller_number_{i}_of_the_hub() == 0\n"
    for i in range(HUB_CALLERS)
)


def index_project(root: Path, workspace: str, graph) -> str:
    """Write the project under `root` and index it into `workspace`."""
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    index_symbols(root, workspace=workspace, graph=graph, jobs=1)
    return workspace


@contextmanager
def indexed_project(tmp_path_factory: pytest.TempPathFactory, workspace: str) -> Iterator[str]:
    """The project indexed into `workspace` with a private GRAPHSVC_HOME, dropped afterwards."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GRAPHSVC_HOME", str(tmp_path_factory.mktemp("home")))
        reload_settings()
        reset_graph()
        graph = get_graph()
        drop_workspace(workspace, graph, missing_ok=True)
        index_project(tmp_path_factory.mktemp("project"), workspace, graph)
        try:
            yield workspace
        finally:
            drop_workspace(workspace, graph, missing_ok=True)
            reset_graph()
    reload_settings()
