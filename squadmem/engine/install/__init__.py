"""What `init` installs and `doctor` checks: the git hooks, the merge driver, the GitHub workflows."""
