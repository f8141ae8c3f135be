"""The history engine: one streamed pass over history, its cache, the commit graph and its
walks, last uses."""
