"""Audit packs: a claim's evidence and history in one signed archive that anyone can
check without Spanproof (``docs/audit-pack.md``).

Framework-free: ``check`` is the standalone checker (one stdlib-only file, copied into
every pack) and holds the format's rules; ``writer`` streams a pack into a zip;
``signing`` makes and seals the workspace's Ed25519 key; ``scope`` parses what to export.
The Django side reads the rows (``verifier.selectors.audit_pack``) and runs exports
(``verifier.services.audit_pack``).
"""
