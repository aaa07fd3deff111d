"""A decorated function read as an object (``do_work.send()``) is what its outermost
decorator makes of it, when that is an instance of a workspace class; called, it is still the
function (what an agent asks about when it asks who calls it)."""

from tests.unit.symbols_helpers import one_file_calls

PYTHON = b"""\
import functools

class Actor:
    def __init__(self, fn): self.fn = fn
    def send(self): pass

def actor(fn) -> Actor:
    return Actor(fn)

def task(**options):
    def decorator(fn):
        return Actor(fn)
    return decorator

class Broker:
    def task(self, retries=0) -> "Decorator": pass

class Decorator:
    def __call__(self, fn) -> Actor: pass

broker = Broker()

@actor
def bare(): pass

@task(retries=3)
def called(): pass

@broker.task(retries=1)
def through_an_object(): pass

@functools.lru_cache
def external(): pass

def returns_a_function(fn):
    return fn

@returns_a_function
def kept(): pass

def send_bare(): bare.send()
def send_called(): called.send()
def send_through(): through_an_object.send()
def call_bare(): bare()
def clear(): external.cache_clear()
def send_kept(): kept.send()
"""


CALLS = one_file_calls("m.py", PYTHON)


def test_a_decorated_function_read_as_an_object_is_what_its_decorator_makes():
    for caller in ("send_bare", "send_called", "send_through"):
        assert CALLS[caller] == {"Actor.send": ("type", 1.0)}, caller


def test_a_decorated_function_called_is_the_function():
    assert CALLS["call_bare"] == {"bare": ("scope", 1.0)}


def test_a_decorator_giving_no_known_instance_leaves_the_name_as_it_was():
    assert all(conf < 1.0 for _, conf in CALLS.get("send_kept", {}).values())
    assert all(dst.startswith("ext:") or conf < 1.0 for dst, (_, conf) in CALLS.get("clear", {}).items())
