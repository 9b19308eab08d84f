"""Density, speed and flow at measurement lines for one frame, as PedPy computes them, printed
as one JSON line.

Usage: line_frame.py FRAME.txt 'X0,Y0 X1,Y1 X2,Y2 X3,Y3' 'AX,AY,BX,BY' ...

FRAME.txt holds one person a line, `x y vx vy` (metres, metres per second). The polygon is the
walkable area; each further argument a measurement line from A to B. Voronoi cells are cut off
at 1 m (quad_segments 3, Throng's `measure::voronoi`); each person's species is the sign of
their velocity along the line's normal. Prints a list, one {"density", "speed", "flow"} per
line (0 where no cell meets it). Used by tests/measure_line_pedpy.rs.
"""

import json
import sys

import numpy as np
import pandas as pd
import pedpy
from pedpy.methods.method_utils import Cutoff, compute_individual_voronoi_polygons


def main() -> None:
    rows = np.loadtxt(sys.argv[1], ndmin=2)
    walkable = [tuple(float(v) for v in p.split(",")) for p in sys.argv[2].split()]
    ids = np.arange(len(rows))
    frame = pd.DataFrame({"id": ids, "frame": 0, "x": rows[:, 0], "y": rows[:, 1]})
    traj = pedpy.TrajectoryData(data=frame, frame_rate=10.0)
    cells = compute_individual_voronoi_polygons(
        traj_data=traj,
        walkable_area=pedpy.WalkableArea(walkable),
        cut_off=Cutoff(radius=1.0, quad_segments=3),
    )
    speed = pd.DataFrame(
        {
            "id": ids,
            "frame": 0,
            "v_x": rows[:, 2],
            "v_y": rows[:, 3],
            "speed": np.hypot(rows[:, 2], rows[:, 3]),
        }
    )
    out = []
    for arg in sys.argv[3:]:
        ax, ay, bx, by = (float(v) for v in arg.split(","))
        line = pedpy.MeasurementLine([(ax, ay), (bx, by)])
        species = pd.DataFrame({"id": ids, "species": np.sign(rows[:, 2:4] @ line.normal_vector())})
        got = {}
        for key, result in [
            ("density", pedpy.compute_line_density(individual_voronoi_polygons=cells, measurement_line=line, species=species)),
            ("speed", pedpy.compute_line_speed(individual_voronoi_polygons=cells, measurement_line=line, individual_speed=speed, species=species)),
            ("flow", pedpy.compute_line_flow(individual_voronoi_polygons=cells, measurement_line=line, individual_speed=speed, species=species)),
        ]:
            got[key] = float(result[key].sum()) if len(result) else 0.0
        out.append(got)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
