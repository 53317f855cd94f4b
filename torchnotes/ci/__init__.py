"""What CI needs besides the build: balanced shards, merged caches, the pull request summary."""
