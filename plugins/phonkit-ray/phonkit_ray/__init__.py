"""phonkit-ray: the launcher ``ray``, which trains each run of a phonkit experiment as a task
on a Ray cluster (https://www.ray.io).

``phonkit experiment unimorph --launcher ray -L address=auto -L num_gpus=0.25`` trains every
run of the experiment on the cluster, four runs to a GPU; the finished runs, their logs and
the tables land in the experiment directory on this machine, as with the local launcher.
"""

from __future__ import annotations

from collections.abc import Mapping

from phonkit.plugin import InputError, hookimpl, read_settings

__version__ = "0.1.0"


class RayLauncher:
    name = "ray"
    description = "tasks on a Ray cluster (-L address=..., num_cpus, num_gpus per run)"

    def start(self, settings: Mapping[str, str], jobs: int):
        from phonkit_ray.cluster import Cluster, RaySettings, resolve

        chosen = read_settings(RaySettings, settings, self.name)
        chosen.check()
        if jobs != 1:
            raise InputError(
                f"--jobs {jobs} is for the local launcher; on Ray, the runs at once follow the "
                "cluster's resources and each run's -L num_cpus and -L num_gpus"
            )
        from phonkit_ray.driver import RaySession

        return RaySession(chosen, Cluster(resolve(chosen.address)))


@hookimpl
def register_launchers(register) -> None:
    register(RayLauncher())
