"""tools/embedding: a small face-embedding network rebuilt through the real training code
(the view generators of random designs and of strangers' dice sets, the episodic
trainer, the export), read back by vision's numpy forward pass. The shipped network takes
~18 minutes; this one, 16 designs seen in two episodes, seconds.

torch is imported in the test, not at collection: importing it takes seconds in every
xdist worker of `make test`, which skips this slow test."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tools.embedding.dice import views
from tools.embedding.stranger_dice import stranger_views
from vision.reading.embedding import EMBED_DIMS, VIEW_PX, load_embedding


@pytest.mark.slow  # trains a network with torch: a CPU-minute
@pytest.mark.timeout(120)
def test_a_small_embedding_is_rebuilt_and_read_in_numpy_as_in_torch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import torch
    from torch.nn import functional

    from tools.embedding.train import DESIGNS_PER_STEP, export, train

    half = DESIGNS_PER_STEP // 2  # one episode's designs, four views a face
    pool = np.concatenate([views(half, 4, seed=3), stranger_views(half, 4, seed=3)])
    assert pool.shape == (DESIGNS_PER_STEP, 6, 4, VIEW_PX, VIEW_PX)
    net = train(pool, epochs=2)
    trained = capsys.readouterr().out
    loss = re.search(r"epoch 2/2: loss (\d+\.\d+)", trained)
    assert loss is not None and np.isfinite(float(loss.group(1))), trained
    # batch norm has moved off its initial statistics: folding it into the export matters
    norms = [m for m in net if isinstance(m, torch.nn.BatchNorm2d)]
    assert norms and any(
        m.running_mean is not None and bool(m.running_mean.abs().max() > 0) for m in norms
    )

    out = tmp_path / "face-embedding.npz"
    export(net, out)
    assert "numpy matches torch" in capsys.readouterr().out

    loaded = load_embedding(out)
    x = pool[:2].reshape(-1, VIEW_PX, VIEW_PX).astype(np.float32)  # real training views
    with torch.no_grad():
        expected = functional.normalize(net(torch.tensor(x)[:, None]), dim=1).numpy()
    got = loaded.embed(x)
    assert got.shape == (len(x), EMBED_DIMS)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-4)
    assert float(np.abs(got - expected).max()) < 1e-4
