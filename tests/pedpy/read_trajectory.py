"""Reads a Throng recording back with PedPy and prints what PedPy sees, as one JSON line.

Usage: read_trajectory.py FILE.sqlite|FILE.txt 'X1,Y1 X2,Y2 ...'

The polygon is the measurement area (metres, the file's x and y). Prints
{"frames", "people", "frame_rate", "mean_density", "walkable_area"} where mean_density is the
mean of pedpy.compute_classic_density over the frames, and walkable_area the area of the
walkable polygon (SQLite only, else null). Used by tests/record_pedpy.rs.
"""

import json
import pathlib
import sys

import pedpy


def main() -> None:
    path = pathlib.Path(sys.argv[1])
    points = [tuple(float(v) for v in p.split(",")) for p in sys.argv[2].split()]
    if path.suffix == ".sqlite":
        traj = pedpy.load_trajectory_from_jupedsim_sqlite(trajectory_file=path)
        walkable = pedpy.load_walkable_area_from_jupedsim_sqlite(trajectory_file=path)
        walkable_area = walkable.polygon.area
    else:
        traj = pedpy.load_trajectory_from_txt(trajectory_file=path)
        walkable_area = None
    area = pedpy.MeasurementArea(points)
    density = pedpy.compute_classic_density(traj_data=traj, measurement_area=area)
    data = traj.data
    print(
        json.dumps(
            {
                "frames": int(data.frame.nunique()),
                "people": int(data.id.nunique()),
                "frame_rate": float(traj.frame_rate),
                "mean_density": float(density.density.mean()),
                "walkable_area": walkable_area,
            }
        )
    )


if __name__ == "__main__":
    main()
