"""Sequence-pair NLI models as Layer-2 judges: any local model that reads (premise,
claim) and answers entailment / neutral / contradiction (or entailed / not), run through
transformers (``SPANPROOF_JUDGE_BACKEND=cross-encoder``) or as an int8 ONNX file
(``spanproof-nli-v2``, trained here). See docs/cross-encoder-judge.md. No Django imports.
"""
