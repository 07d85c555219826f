"""A real OAuth client against PalmaPlan: the official MCP Python SDK's
OAuthClientProvider (dynamic registration, PKCE S256, resource indicator, RFC 9207 iss)
connects to `palmaplan serve` by URL alone. The browser is scripted: the redirect
handler opens the authorization URL with its own HTTP client (cookies kept, redirects
not followed), signs in and allows read+write on the consent page, as a person would,
and hands the code back. Then `list_schedules` over MCP, a refresh (the access token is
made to look expired), the old refresh token refused, and `list_schedules` again.

Usage: sdk_flow.py MCP_URL EMAIL PASSWORD. Prints what it checked; exits non-zero on
the first failure.
"""

import asyncio
import html
import re
import sys
import time
from urllib.parse import urljoin, urlparse, parse_qs

import httpx2
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

URL, EMAIL, PASSWORD = sys.argv[1:4]
REDIRECT = "http://127.0.0.1:9/callback"  # never reached: the scripted browser reads Location
checked = []


def check(what, ok):
    if not ok:
        print(f"FAILED: {what}", flush=True)
        sys.exit(1)
    checked.append(what)
    print(f"ok: {what}", flush=True)


class Memory(TokenStorage):
    def __init__(self):
        self.tokens = None
        self.client = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, info: OAuthClientInformationFull):
        self.client = info


def hidden_fields(page):
    fields = {}
    for name, value in re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', page):
        fields[html.unescape(name)] = html.unescape(value)
    return fields


class Browser:
    """What a person's browser does between the host's redirect and its callback."""

    def __init__(self):
        self.result = None

    async def open(self, authorization_url):
        async with httpx2.AsyncClient(follow_redirects=False, timeout=30) as b:
            r = await b.get(authorization_url)
            check("not signed in: the authorization request goes to the sign-in page", r.status_code == 303)
            signin = urljoin(authorization_url, r.headers["location"])
            r = await b.get(signin)
            check("the sign-in page answers", r.status_code == 200 and "PalmaPlan" in r.text)
            form = hidden_fields(r.text) | {"email": EMAIL, "password": PASSWORD}
            r = await b.post(urljoin(signin, "/oauth/signin"), data=form)
            check("signed in", r.status_code == 303)
            consent_url = urljoin(signin, r.headers["location"])
            r = await b.get(consent_url)
            check("the consent page names the client", r.status_code == 200 and "palmaplan-sdk-test" in r.text)
            form = hidden_fields(r.text) | {"decision": "allow", "access": "write", "schedule": ""}
            r = await b.post(urljoin(consent_url, "/oauth/authorize"), data=form)
            check("allowed: sent back to the redirect URI", r.status_code == 303 and r.headers["location"].startswith(REDIRECT))
            q = parse_qs(urlparse(r.headers["location"]).query)
            self.result = AuthorizationCodeResult(code=q["code"][0], state=q.get("state", [None])[0], iss=q.get("iss", [None])[0])

    async def callback(self):
        return self.result


async def list_schedules(http):
    async with streamable_http_client(URL, http_client=http) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            r = await session.call_tool("list_schedules", {})
            text = "".join(c.text for c in r.content if getattr(c, "text", None))
            return r, text


async def main():
    storage = Memory()
    browser = Browser()
    provider = OAuthClientProvider(
        server_url=URL,
        client_metadata=OAuthClientMetadata(
            client_name="palmaplan-sdk-test",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
            scope="read write",
        ),
        storage=storage,
        redirect_handler=browser.open,
        callback_handler=browser.callback,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=30) as http:
        r, text = await list_schedules(http)
        check("list_schedules through OAuth", not r.is_error and "S/4HANA" in text)
        check("registered dynamically", storage.client is not None and storage.client.client_id.startswith("pcl_"))
        first = storage.tokens
        check("an access and a refresh token", first.access_token.startswith("ppa_") and first.refresh_token.startswith("ppr_"))

        # The SDK refreshes a token it believes expired, before the next request.
        provider.context.token_expiry_time = time.time() - 1
        r, text = await list_schedules(http)
        check("list_schedules after a refresh", not r.is_error and "S/4HANA" in text)
        check("the refresh rotated both tokens", storage.tokens.refresh_token != first.refresh_token and storage.tokens.access_token != first.access_token)

    # The old refresh token, replayed by hand, is refused and revokes the grant.
    token_url = urljoin(URL, "/oauth/token")
    async with httpx2.AsyncClient(timeout=30) as raw:
        r = await raw.post(token_url, data={"grant_type": "refresh_token", "refresh_token": first.refresh_token, "client_id": storage.client.client_id})
        check("a rotated refresh token is refused", r.status_code == 400 and r.json()["error"] == "invalid_grant")
        r = await raw.post(URL, headers={"Authorization": f"Bearer {storage.tokens.access_token}", "Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
                           content='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}')
        check("and the grant's newest access token stops working", r.status_code == 401 and "resource_metadata=" in r.headers.get("www-authenticate", ""))
    print(f"{len(checked)} passed, 0 failed", flush=True)


asyncio.run(main())
