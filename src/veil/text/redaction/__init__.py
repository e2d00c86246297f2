"""Redaction: :class:`TextRedactor`, which applies an operator to what detection found,
row deny-lists (values of a record's other fields, ``_row_deny``), the policy pipeline's
text stage (``_stage``) and streaming records from and to files (``_files``). The top
layer: imports detection and replacement (and what they import).
"""
