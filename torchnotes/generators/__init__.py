"""The generators that build the published tree: MkDocs (+ Material), Zensical, the offline copy, the PDF books."""
