"""The one shell of every HTML page the grader writes (feedback, coverage,
class report, similarity): a complete document whose Content-Security-
Policy allows no script, no request and no frame, only the page's inline
style (and, for pages with charts, images of their own directory). Every
page shows text a student wrote, escaped by its writer; the policy is the
second wall should an escape ever be missed."""

import html


def page(title, body, style, images=False):
    """The document: title (plain text, escaped here), body (markup, already
    escaped by the caller), style (CSS), images: allow img-src 'self'."""
    policy = "default-src 'none'; " + ("img-src 'self'; " if images else "") + "style-src 'unsafe-inline'"
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(title)}</title>\n<style>{style}</style>\n</head>\n<body>\n<main>\n"
            + body + "\n</main>\n</body>\n</html>\n")
