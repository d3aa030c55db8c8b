"""Building the face-embedding network ``vision/models/face-embedding.npz`` (needs PyTorch)."""
