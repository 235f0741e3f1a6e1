"""The ``-L`` settings of the ``ray`` launcher, and the connection to a Ray cluster: an
existing one (``address=auto`` or ``HOST:PORT``) or a new one on this machine."""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass

from phonkit.plugin import InputError

TRANSFERS = ("run", "record")
CONNECT_SECONDS = 10.0


@dataclass
class RaySettings:
    address: str = ""  # empty: $RAY_ADDRESS, else a cluster `ray start` made here, else a new one
    num_cpus: float = 1.0  # Ray's CPUs per run; also its torch threads (at least 1)
    num_gpus: float = 0.0  # GPUs per run; a fraction lets runs share one (0.25: four to a GPU)
    retries: int = 2  # times a run whose worker or node is lost is tried again
    transfer: str = "run"  # run: the whole run directory, each epoch; record: scores at the end

    def check(self) -> None:
        if self.num_cpus < 0 or self.num_gpus < 0:
            raise InputError("-L num_cpus and -L num_gpus cannot be negative")
        if self.num_cpus == 0 and self.num_gpus == 0:
            raise InputError("a run needs some resource: -L num_cpus or -L num_gpus above 0")
        if self.num_gpus > 1 and self.num_gpus != int(self.num_gpus):
            raise InputError(f"-L num_gpus={self.num_gpus:g}: above 1, Ray gives whole GPUs only")
        if self.retries < 0:
            raise InputError("-L retries cannot be negative")
        if self.transfer not in TRANSFERS:
            raise InputError(
                f"-L transfer={self.transfer}: use run (the whole run directory, each epoch) "
                "or record (config, history and scores at the end; no weights)"
            )

    def per_run(self) -> str:
        parts = [f"{self.num_cpus:g} CPU"] if self.num_cpus else []
        parts += [f"{self.num_gpus:g} GPU"] if self.num_gpus else []
        return " and ".join(parts)

    def fits(self, resources: dict[str, float]) -> int:
        """How many runs the cluster's ``resources`` train at once (at least 1: an
        autoscaling cluster may grow into a run that does not fit yet)."""
        counts = [
            int(resources.get(kind, 0.0) / wanted + 1e-9)
            for kind, wanted in (("CPU", self.num_cpus), ("GPU", self.num_gpus))
            if wanted
        ]
        return max(1, min(counts))


class Cluster:
    """A connection to a Ray cluster; one that this process started ends with :meth:`close`."""

    def __init__(self, address: str):
        import ray

        self.address = address
        self.owned = False
        if address.startswith("ray://"):
            raise InputError(
                f"{address} is a Ray Client address, which cannot stream runs back; run phonkit "
                "on a node of the cluster (over ssh, or with `ray job submit`) with "
                "-L address=auto"
            )
        if address not in ("", "auto", "local"):
            reachable(address)
        if ray.is_initialized():  # a program (or a test) that calls phonkit holds a connection
            here = ray.get_runtime_context().gcs_address
            if address not in ("", "auto") and address != here:
                raise InputError(f"already connected to the Ray cluster at {here}, not {address}")
            self.address = here
            return
        try:
            context = ray.init(
                address=address or None,
                include_dashboard=False,
                log_to_driver=False,  # each run's messages go to its log, not to this stderr
                logging_level=logging.ERROR,
            )
        except Exception as error:  # Ray raises plain Exception too (a node that will not start)
            if address == "auto":
                raise InputError(
                    "no Ray cluster is running on this machine (-L address=auto); start one "
                    "with `ray start --head`, or name the head node with -L address=HOST:6379"
                ) from None
            where = (
                f"connect to a Ray cluster at {address}"
                if address not in ("", "local")
                else "start or join a Ray cluster on this machine"
            )
            detail = (str(error).strip().splitlines() or [type(error).__name__])[0]
            raise InputError(f"cannot {where}: {detail}") from None
        self.owned = True
        self.address = context.address_info.get("gcs_address") or address

    def describe(self) -> str:
        import ray

        resources = ray.cluster_resources()
        cpus, gpus = resources.get("CPU", 0), resources.get("GPU", 0)
        nodes = sum(1 for node in ray.nodes() if node.get("Alive"))
        return (
            f"the Ray cluster at {self.address} ({nodes} node{'s' * (nodes != 1)}, "
            f"{cpus:g} CPUs, {f'{gpus:g} GPUs' if gpus else 'no GPU'})"
        )

    def close(self) -> None:
        import ray

        if self.owned:
            ray.shutdown()
            self.owned = False


def reachable(address: str) -> None:
    """A clear error, before Ray's own retries, when nothing answers at ``HOST:PORT``."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise InputError(
            f"-L address={address}: expected HOST:PORT (the head node's, 6379 by default), "
            "auto, or local"
        )
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_SECONDS).close()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise InputError(f"cannot reach a Ray cluster at {address}: {reason}") from None


def resolve(address: str) -> str:
    """The address asked for: ``-L address``, else ``$RAY_ADDRESS``, else empty."""
    return address.strip() or os.environ.get("RAY_ADDRESS", "").strip()
