"""The host contract, one module per side of the seam; hosts import it through ``host.py``.

Read in the order a round crosses the seam: ``hosting`` (what the cell needs from
its host), ``rounds`` (a round's context in and result out), ``parts`` (what a
round streams), ``native_calls`` (Cursor's own tools run in place) and
``cell_face`` (what a host reads of a loaded cell). These modules state shapes
only; the cell's other modules make and read them.
"""
