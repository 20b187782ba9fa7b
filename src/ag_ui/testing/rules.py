"""The rule catalogue: every check the test kit and ``agui validate`` report, with a stable id,
what it means, how to fix it, and the matching ``ag-ui-validate`` 0.4.0 rule (``AGUI###``).

Two families:

* **Stream rules** judge one event stream. The sequence rules keep the verifier's codes
  (PROTOCOL.md §5: ``R1``-``R4``, ``N1``-``N7``, ``T1``-``T3``, ``C1``-``C3``, ``S1``-``S3``,
  ``G1``-``G4``, ``A1``-``A6``, ``O1``-``O3``, ``F1``-``F6``; the draft rules ``D1``-``D3``
  (under ``strict_draft``); chunk expansion ``X0``-``X3``;
  ``END`` for the strict end); the others are dotted names (``wire.frame``,
  ``tool.args-json``, ``state.patch``, ...).
* **Scenario rules** judge what ``agui validate`` does across runs (``history.refused``,
  ``interrupt.resume``, ``reconnect.gap``, ...).

Ids never change meaning; new rules get new ids. ``docs/validate.md`` prints this table.
The entries of each family are in ``_stream_rules`` and ``_scenario_rules``; ``Rule`` in
``_rule``.

>>> RULES["T2"].agui
('AGUI101',)
>>> rule("tool.args-json").title
'tool call arguments are not valid JSON'
"""

from __future__ import annotations

from ag_ui.testing._rule import Rule, Severity
from ag_ui.testing._scenario_rules import SCENARIO_RULES
from ag_ui.testing._stream_rules import STREAM_RULES

__all__ = ["RULES", "Rule", "Severity", "rule"]


RULES: dict[str, Rule] = {entry.id: entry for entry in (*STREAM_RULES, *SCENARIO_RULES)}
"""Every rule by id, in catalogue order."""


def rule(rule_id: str) -> Rule:
    """The rule ``rule_id``; unknown ids (a newer verifier) get a generic entry."""
    found = RULES.get(rule_id)
    if found is not None:
        return found
    return Rule(rule_id, f"rule {rule_id}", "See PROTOCOL.md §5 for the rule.")
