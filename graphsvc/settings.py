"""All settings in one typed object, read once.

Sources, highest first: environment variables (``GRAPHSVC_…``, nested with ``__``, plus the
conventional ``NEO4J_URI`` / ``NEO4J_USER`` / ``NEO4J_PASSWORD``), then
``$GRAPHSVC_HOME/config.toml`` (default ``~/.graphsvc/config.toml``), then defaults.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = REPO_ROOT / "schema"


def default_home() -> Path:
    return Path(os.environ.get("GRAPHSVC_HOME", Path.home() / ".graphsvc")).expanduser()


class Neo4jSettings(BaseModel):
    """Where the graph lives. `uri` unset means: use (and if needed install/start) the managed server."""

    uri: str | None = None
    user: str = "neo4j"
    password: str | None = None
    database: str = "neo4j"
    version: str = "5.26.30"  # newest 5.26 LTS patch on Maven Central (Java 17)
    browser_version: str = "5.24.0"
    home: Path | None = None  # default: $GRAPHSVC_HOME/neo4j
    bolt_port: int = 7687
    http_port: int = 7474
    # "auto": chosen from the machine's memory by the managed server (graphsvc.neo4j.memory);
    # or a size such as "2g". The store of a large repository must fit in the page cache, or
    # random reads fault to disk and query latency doubles.
    heap: str = "auto"
    pagecache: str = "auto"
    start_timeout_s: float = 120.0
    transaction_timeout_s: float = 30.0


class IndexSettings(BaseModel):
    max_file_bytes: int = 2_000_000
    batch_size: int = 5000
    jobs: int = 0  # 0: one worker per core
    write_workers: int = 2  # concurrent Neo4j transactions for symbol and edge batches
    watch_step_ms: int = 50  # `graphsvc watch`: this long without a change ends a batch...
    watch_debounce_ms: int = 500  # ...or this long after its first change, while changes go on


class ContextBackgroundSettings(BaseModel):
    token_budget: int = 20_000
    max_entries: int = 20
    max_entry_chars: int = 4_000
    ring_size: int = 60
    compact_above: int = 40
    summary_sources: list[str] = Field(default_factory=lambda: ["none"])
    summary_command: str | None = None
    summary_url: str | None = None
    summary_timeout_s: float = 20.0
    keep_tail: int = 10  # entries compaction leaves untouched
    protected_tail: int = 2  # most recent entries every block includes
    digest_first_turns: int = 3  # user turns the deterministic digest keeps verbatim
    tokenizer: str = "auto"  # "auto": bpe-openai when installed; "estimate": never load it


class ContextSettings(BaseModel):
    dir: Path | None = None  # default: $GRAPHSVC_HOME/context
    max_events: int = 4096
    retain_days: int = 14
    warm_load_days: int = 2
    max_payload_bytes: int = 65_536
    background: ContextBackgroundSettings = Field(default_factory=ContextBackgroundSettings)


class TransformSettings(BaseModel):
    local_context: int = 8_000
    local_episode_count: int = 3


class CacheSettings(BaseModel):
    max_bytes: int = 512 * 1024 * 1024
    freshness_s: int = 3600
    index_cap_bytes: int = 1_000_000


class ServerSettings(BaseModel):
    host: str = "127.0.0.1"
    port: int = 8080
    token: str | None = None
    # Names a request may give in `Host`; empty: the bound address (plus the loopback names
    # when it is one); "*": any (only behind a proxy that checks it).
    allowed_hosts: list[str] = Field(default_factory=list)
    workspace_roots: list[Path] = Field(default_factory=list)
    max_body_bytes: int = 2_000_000
    max_query_bytes: int = 100_000  # one GraphQL document
    max_query_depth: int = 10
    max_results: int = 1000


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="GRAPHSVC_",
        env_nested_delimiter="__",
        extra="ignore",
    )

    home: Path = Field(default_factory=default_home)
    neo4j: Neo4jSettings = Field(default_factory=Neo4jSettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    context: ContextSettings = Field(default_factory=ContextSettings)
    transform: TransformSettings = Field(default_factory=TransformSettings)
    cache: CacheSettings = Field(default_factory=CacheSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = TomlConfigSettingsSource(settings_cls, toml_file=default_home() / "config.toml")
        return (init_settings, env_settings, toml)

    def model_post_init(self, __context: object) -> None:
        # The conventional Neo4j variables win over everything else.
        env = os.environ
        if env.get("NEO4J_URI"):
            self.neo4j.uri = env["NEO4J_URI"]
        if env.get("NEO4J_USER") or env.get("NEO4J_USERNAME"):
            self.neo4j.user = env.get("NEO4J_USER") or env["NEO4J_USERNAME"]
        if env.get("NEO4J_PASSWORD"):
            self.neo4j.password = env["NEO4J_PASSWORD"]
        if self.neo4j.home is None:
            self.neo4j.home = self.home / "neo4j"
        if self.context.dir is None:
            self.context.dir = self.home / "context"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


def reload_settings() -> Settings:
    """Forget the cached settings (tests change the environment)."""
    get_settings.cache_clear()
    return get_settings()
