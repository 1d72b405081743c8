"""The scalar engines: ``Value`` (reverse mode), ``Dual`` (forward mode), symbolic and
numerical differentiation, and the graph protocol they and ``Tensor`` share."""
