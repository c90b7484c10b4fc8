"""In real Chromium: pages, htmx, the admin and the Swagger UI run under the Content-Security-Policy
with no violation (the browser reports each one on the console as "Refused to …")."""

import pytest

from apps.accounts.roles import Role
from tests.factories import PASSWORD, PartFactory, UserFactory

from .test_catalogue_flow import page  # noqa: F401  (the Chromium fixture)

# Collects violations as the page sees them, in addition to the console messages.
REPORT_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


@pytest.mark.browser
def test_pages_htmx_admin_and_api_docs_load_with_no_csp_violation(page, live_server, transactional_db):  # noqa: F811
    from playwright.sync_api import expect

    UserFactory(username="ada", role=Role.ADMIN, is_staff=True, is_superuser=True)
    PartFactory(part_number="MMA4Z00-NS", name="800G twin-port OSFP SR8")
    PartFactory(part_number="SN2201", name="Out-of-band Ethernet switch")

    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    page.context.add_init_script(REPORT_VIOLATIONS)

    def violations() -> list[str]:
        reported = page.evaluate("window.__cspViolations || []")
        refused = [text for text in console if "Refused to" in text or "Content Security Policy" in text]
        return reported + refused

    response = page.goto(f"{live_server.url}/parts/")
    assert "Content-Security-Policy" in response.headers or "content-security-policy" in response.headers
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Parts catalogue")).to_be_visible()

    # htmx swaps the results table in place: its script runs and injects no inline style.
    page.get_by_label("Search parts").fill("osfp")
    expect(page.locator("#results")).not_to_contain_text("SN2201")
    assert violations() == []

    page.goto(f"{live_server.url}/admin/")
    expect(page.get_by_role("heading", name="Site administration")).to_be_visible()
    assert violations() == []

    page.goto(f"{live_server.url}/api/docs/")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Rackpass API")
    expect(page.locator(".opblock-tag").first).to_be_visible()
    page.locator(".opblock-tag").first.click()  # tags start collapsed: open the first one
    page.locator(".opblock-summary").first.click()  # expanding an operation renders more of the UI
    expect(page.locator(".opblock-body").first).to_be_visible()
    assert violations() == []
