"""Protocol-free editor services (completion, hover): plain dataclasses in, plain dataclasses out.

The server's feature modules convert them to lsprotocol types; nothing here imports pygls.
"""
