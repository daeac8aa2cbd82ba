"""The text layer: word lists and sentence splitting (pure Python, no Django).

One source for the words every reader of text needs, so that a list is changed once:

* ``stopwords`` — function words: the judge's list and the two shorter lists derived
  from it (retrieval, the rule-set preview), each difference named;
* ``negations`` — negation words and cues;
* ``hedges`` — hedges and absolutes (what weakens or strengthens a statement);
* ``abbreviations`` — the abbreviations a ``.`` does not end a sentence after;
* ``sentences`` — the two sentence splitters (evidence offsets, extractor blocks);
* ``words`` — the word and name patterns each reader cuts text with, named;
* ``synonyms`` — the judge's and the memory verifier's synonym groups;
* ``search_fold`` — the one rule text searches match by (case, accents, Unicode form,
  whitespace runs), in Python and as PostgreSQL's SQL.

Callers import the module they need (``from verifier.text.stopwords import STOPWORDS``).
"""
