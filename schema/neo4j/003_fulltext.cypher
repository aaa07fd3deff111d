// The first keyword search index, entity_text, was created here; entity_search (004) replaced
// it and 005 drops it, so it is no longer created.
