"""The cost budgets of the layout steps: counts, never times, so the same input gives the
same drawing. Each default sits above what the shared corpus's largest diagram needs
(docs/layout.md, "Bounded cost"), so real models take the exact paths and only dense or
huge graphs the cheaper ones. ``LayoutOptions.budgets`` carries them to every step; a test
lowers one by passing ``Budgets(...)``, never by patching a module.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Budgets:
    # layering (steps/layering.py): the linear program up to this many edges
    layering_lp_edges: int = 8_000
    # proper graph (steps/proper.py): edges share chains past ratio * (nodes + edges) + floor
    # dummies; chains beyond min(ratio * (nodes + edges) + floor, cap) dummies, or beyond
    # ``chain_links`` links in all chains, bypass the layers
    concentrate_ratio: int = 2
    concentrate_floor: int = 500
    dummy_ratio: int = 2
    dummy_floor: int = 2_000
    dummy_cap: int = 10_000
    chain_links: int = 200_000
    # ordering (steps/ordering.py): sweep and transpose units; a second start below this
    # many vertices
    sweep_work: int = 1_000_000
    second_start_vertices: int = 3_000
    # re-threading (steps/chain_paths.py): units per call and rounds
    chain_work: int = 10_000_000
    rethreading_rounds: int = 2
    # exact order (steps/exact_order.py): program variables per drawing, branch-and-bound
    # nodes per block, pairs of links a block may have per variable left
    exact_variables: int = 800
    exact_nodes: int = 100
    exact_link_pairs_per_variable: int = 8
    # placement (steps/placement.py): the linear program up to this many variables (vertices
    # and links), more when links are sparse; the relaxation's sweeps and visits
    placement_lp_variables: int = 8_000
    sparse_placement_lp_variables: int = 16_000
    relaxation_sweeps: int = 8
    relaxation_work: int = 200_000
    # straightening (steps/straighten.py): passes, vertices a move may push, vertices a
    # move parting two swapped links may push as a last resort
    straighten_passes: int = 4
    push_limit: int = 200
    swap_push_limit: int = 1_000
    # channels (steps/channels.py): segment pairs ordered exactly per drawing
    channel_pairs: int = 40_000
    # lanes (steps/lanes.py): every order up to this many lanes, else swap passes
    exhaustive_lanes: int = 7
    lane_swap_passes: int = 100
    # row packing (packing.py) and matrices (matrix.py)
    packing_widths: int = 600
    matrix_cells: int = 100_000


#: The budgets of ``LayoutOptions()``, for step functions called on their own.
DEFAULT_BUDGETS = Budgets()
