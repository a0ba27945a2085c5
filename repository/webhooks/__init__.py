"""Webhooks (issue 24, docs/events.md "Webhooks"): each tenant's change feed pushed to the
endpoints its administrators registered, signed as the Standard Webhooks specification
says, in order per endpoint, retried, never to a private address unless allowed.

- `signing`: secrets, signatures and their check;
- `targets`: which URLs and addresses a delivery may go to;
- `sender`: one HTTP POST with a deadline, a response cap and no redirects;
- `endpoints`: the endpoints' rows and the delivery log;
- `worker`: the delivery loop, run by one process at a time (a lease in the database).
"""
