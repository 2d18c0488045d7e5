"""``/healthz`` and ``/readyz``: for load balancers and orchestrators."""

from __future__ import annotations

from flask import current_app
from marshmallow import Schema, fields

from ..api import Blueprint
from ..errors import Problem
from ..store import ready

blp = Blueprint("health", __name__, url_prefix="/", description="Liveness and readiness")


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"example": "ok"})


@blp.route("/healthz", operation_id="checkHealth")
@blp.response(200, HealthSchema)
@blp.problems({503: ["storage_failed"]})
def healthz() -> dict[str, str]:
    """Liveness: the process is up.

    200 while the process can recover by itself; 503 `storage_failed` when its embedded Redis
    died and could not be restarted: restart the service. Needs no token, reads no game.
    """
    embedded = current_app.extensions.get("koz_embedded")
    if embedded is not None and embedded.failed:
        raise Problem(503, "storage_failed", "storage_failed")
    return {"status": "ok"}


@blp.route("/readyz", operation_id="checkReadiness")
@blp.response(200, HealthSchema)
@blp.problems({503: ["storage_unavailable"]})
def readyz() -> dict[str, str]:
    """Readiness: the process may take traffic.

    200 when its Redis answers (on a cluster: every primary reports the cluster ok); 503
    `storage_unavailable` otherwise, so a load balancer sends requests elsewhere until it recovers.
    """
    if not ready(current_app.extensions["koz_readiness"]):
        raise Problem(503, "storage_unavailable", "cluster_not_ready")
    return {"status": "ok"}
