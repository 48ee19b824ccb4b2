"""LSP features; each module exposes ``register(server: EaselServer) -> None``."""
