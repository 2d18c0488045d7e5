"""``/healthz`` and ``/readyz``: for load balancers and orchestrators."""

from __future__ import annotations

from marshmallow import Schema, fields

from ..api import Blueprint
from ..errors import Problem
from .games import tables

blp = Blueprint("health", __name__, url_prefix="/", description="Liveness and readiness")


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"example": "ok"})


@blp.route("/healthz")
@blp.response(200, HealthSchema)
def healthz():
    """The process is up."""
    return {"status": "ok"}


@blp.route("/readyz")
@blp.response(200, HealthSchema)
@blp.problems({503: ["storage_unavailable"]})
def readyz():
    """The process is up and its Redis answers (on a cluster: every primary reports the cluster ok)."""
    if not tables().store.ready():
        raise Problem(503, "storage_unavailable", "the Redis cluster is not ready")
    return {"status": "ok"}
