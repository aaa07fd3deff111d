"""The HTTP surface: GraphQL at /graphql and REST under /api, both thin layers over the library."""
