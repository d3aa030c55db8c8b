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
from numpy.typing import NDArray

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


@pytest.mark.slow  # torch, and a few episodes of training
@pytest.mark.timeout(120)
def test_training_on_from_the_shipped_network_starts_where_it_stands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import torch
    from torch.nn import functional

    from tools.embedding.train import DESIGNS_PER_STEP, embedding_net, export, start_from, train
    from vision.reading.embedding import DEFAULT_PATH

    x = np.random.default_rng(4).normal(size=(6, VIEW_PX, VIEW_PX)).astype(np.float32)
    shipped = load_embedding(DEFAULT_PATH).embed(x)

    def embedded(net: torch.nn.Sequential) -> NDArray[np.float32]:
        with torch.no_grad():
            out: NDArray[np.float32] = functional.normalize(
                net(torch.tensor(x)[:, None]), dim=1
            ).numpy()
        return out

    net = embedding_net().eval()
    start_from(net, DEFAULT_PATH)
    assert float(np.abs(embedded(net) - shipped).max()) < 1e-4  # the folding undone exactly

    pool = stranger_views(DESIGNS_PER_STEP, 4, seed=5)
    tuned = train(pool, epochs=4, pretrained=DEFAULT_PATH, lr=1e-2)
    norms = [m for m in tuned if isinstance(m, torch.nn.BatchNorm2d)]
    for m in norms:  # the shipped statistics kept while the rest learned
        assert m.running_mean is not None and m.running_var is not None
        assert float(m.running_mean.abs().max()) == 0.0
        assert torch.allclose(m.running_var, torch.full_like(m.running_var, 1.0 - m.eps))
    moved = float(np.abs(embedded(tuned) - shipped).max())
    assert 1e-4 < moved < 0.5  # on from the shipped network: moved, not thrown away
    out = tmp_path / "tuned.npz"
    export(tuned, out)
    assert "numpy matches torch" in capsys.readouterr().out
    assert float(np.abs(load_embedding(out).embed(x) - embedded(tuned)).max()) < 1e-4


@pytest.mark.slow  # imports torch
def test_a_start_network_or_pool_the_trainer_cannot_use_is_named(tmp_path: Path) -> None:
    import torch

    from tools.embedding.train import embedding_net, export, make_pool, start_from

    wide = torch.nn.Sequential(
        torch.nn.Conv2d(1, 8, 3, padding=1, bias=False), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, EMBED_DIMS),
    ).eval()  # fmt: skip
    other = tmp_path / "other.npz"
    export(wide, other)  # a network of other layers, readable on its own
    with pytest.raises(ValueError, match=r"other\.npz: 1 convolutions, expected 4"):
        start_from(embedding_net(), other)
    with pytest.raises(ValueError, match=r"--pools 0: expected 1-6"):
        make_pool(pools=0)
    with pytest.raises(ValueError, match=r"--stranger-designs -1: expected 0-10000"):
        make_pool(stranger_designs=-1)
    with pytest.raises(ValueError, match="no designs to train on"):
        make_pool(random_designs=0)
    with pytest.raises(ValueError, match=r"--glare 1\.5: expected a chance of 0-1"):
        make_pool(glare=1.5)
