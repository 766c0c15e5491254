"""The reviewer: what another bot would have done at each of a seat's decisions.

``python -m sdk.review RECORD --seat N --bot MODULE`` (see :mod:`sdk.review.__main__`).

>>> from sdk.review import review_record, after_counts
>>> callable(review_record), after_counts([1] * 34, __import__("protocol").Action.parse("discard E"), None)[27]
(True, 0)
"""

from sdk.review.report import print_review, review_html
from sdk.review.reviewer import DecisionReview, Review, after_counts, review_record

__all__ = [
    "DecisionReview",
    "Review",
    "after_counts",
    "print_review",
    "review_html",
    "review_record",
]
