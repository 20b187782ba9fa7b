"""What ``agui validate`` found: one ``ScenarioResult`` per scenario, in a ``Report`` that
renders as text, JSON or JUnit XML."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

from ag_ui.testing.grading import Finding

__all__ = ["Report", "RunSummary", "ScenarioResult", "Status"]

Status = Literal["passed", "failed", "not exercised"]


@dataclass(frozen=True)
class RunSummary:
    """One HTTP exchange a scenario made (for the report)."""

    label: str
    status: int
    content_type: str
    events: int
    outcome: Optional[str]

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "httpStatus": self.status,
            "contentType": self.content_type,
            "events": self.events,
            "outcome": self.outcome,
        }


@dataclass
class ScenarioResult:
    """``status`` is passed, failed (``findings`` has an error) or not exercised (``reason``)."""

    name: str
    status: Status
    summary: str = ""
    findings: list[Finding] = field(default_factory=list)
    reason: Optional[str] = None
    runs: list[RunSummary] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "summary": self.summary,
            "reason": self.reason,
            "findings": [f.as_dict() for f in self.findings],
            "runs": [r.as_dict() for r in self.runs],
            "seconds": round(self.seconds, 3),
        }


_MARK = {"passed": "PASS", "failed": "FAIL", "not exercised": "SKIP"}


@dataclass
class Report:
    """Every scenario's result against ``target``; ``ok`` iff none failed."""

    target: str
    scenarios: list[ScenarioResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(s.status != "failed" for s in self.scenarios)

    def counts(self) -> dict[str, int]:
        return {
            status: sum(1 for s in self.scenarios if s.status == status)
            for status in ("passed", "failed", "not exercised")
        }

    def scenario(self, name: str) -> ScenarioResult:
        for result in self.scenarios:
            if result.name == name:
                return result
        raise KeyError(name)

    # -- renderings -----------------------------------------------------------------------------

    def text(self) -> str:
        """What a person reads in a terminal."""
        width = max((len(s.name) for s in self.scenarios), default=8)
        lines = [f"agui validate {self.target}"]
        for result in self.scenarios:
            detail = (
                result.summary
                if result.status != "not exercised"
                else (f"not exercised: {result.reason}")
            )
            lines.append(f"  {_MARK[result.status]}  {result.name:<{width}}  {detail}")
            for finding in result.findings:
                label = "error" if finding.severity == "error" else "warning"
                agui = f" (ag-ui-validate {', '.join(finding.agui)})" if finding.agui else ""
                lines.append(f"        {label} [{finding.rule}] {finding.title}{agui}")
                lines.append(f"          at {finding.where()}: {finding.message}")
                lines.append(f"          fix: {finding.fix}")
        counts = self.counts()
        lines.append(
            f"{len(self.scenarios)} scenarios: {counts['passed']} passed, {counts['failed']} "
            f"failed, {counts['not exercised']} not exercised"
        )
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        counts = self.counts()
        return {
            "target": self.target,
            "ok": self.ok,
            "passed": counts["passed"],
            "failed": counts["failed"],
            "notExercised": counts["not exercised"],
            "scenarios": [s.as_dict() for s in self.scenarios],
        }

    def json(self) -> str:
        return json.dumps(self.as_dict(), ensure_ascii=False, indent=2)

    def junit(self) -> str:
        """JUnit XML: one test case per scenario (failure / skipped as the status says)."""
        counts = self.counts()
        suites = ElementTree.Element("testsuites")
        suite = ElementTree.SubElement(
            suites,
            "testsuite",
            name="agui validate",
            tests=str(len(self.scenarios)),
            failures=str(counts["failed"]),
            skipped=str(counts["not exercised"]),
            errors="0",
            time=f"{sum(s.seconds for s in self.scenarios):.3f}",
        )
        properties = ElementTree.SubElement(suite, "properties")
        ElementTree.SubElement(properties, "property", name="target", value=self.target)
        for result in self.scenarios:
            case = ElementTree.SubElement(
                suite,
                "testcase",
                classname="agui.validate",
                name=result.name,
                time=f"{result.seconds:.3f}",
            )
            if result.status == "failed":
                first = result.errors[0]
                failure = ElementTree.SubElement(
                    case, "failure", message=str(first), type=first.rule
                )
                failure.text = "\n".join(
                    f"[{f.rule}] {f.where()}: {f.message}\nfix: {f.fix}" for f in result.findings
                )
            elif result.status == "not exercised":
                ElementTree.SubElement(case, "skipped", message=result.reason or "")
            if result.summary:
                ElementTree.SubElement(case, "system-out").text = result.summary
        ElementTree.indent(suites)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(
            suites, encoding="unicode"
        )
