"""The git gateway: the one place squadmem runs git and reads its formats."""
