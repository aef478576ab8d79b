#!/usr/bin/env python3
"""The seeds' own Python training loops, timed the way crossover times a cell, for a side-by-side
comparison with `crossover run configs/optimizers-cpu.json` (scripts/python-baseline.sh runs both).

Each loop is the plain PyTorch one of the blog posts: zero_grad, forward, loss, backward, step,
with PyTorch's default optimiser implementation; the loss is read once per epoch. One thread, as
the grid sets (`threads: 1`). Prints one JSON object per line: the case, the epochs timed and the
median epoch in seconds.

    python3 bench/python_baseline.py DATA_DIR [--repeats N]
"""
import argparse
import gzip
import json
import os
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy  # noqa: E402
import torch  # noqa: E402  (after the thread settings, which torch reads when it loads)
from PIL import Image  # noqa: E402

torch.set_num_threads(1)


def read_iris(data_dir):
    """Iris as crossover reads it: 150 rows, four features, a 75/25 split: 112 training rows."""
    rows = []
    with open(os.path.join(data_dir, "iris.csv")) as f:
        next(f)  # scikit-learn's header: rows, columns, class names
        for line in f:
            *features, label = line.strip().split(",")
            rows.append(([float(v) for v in features], int(label)))
    generator = torch.Generator().manual_seed(0)
    order = torch.randperm(len(rows), generator=generator)[:112]
    x = torch.tensor([rows[i][0] for i in order])
    y = torch.tensor([rows[i][1] for i in order])
    return x, y


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(dims)]
    return torch.frombuffer(bytearray(data[4 + 4 * dims:]), dtype=torch.uint8).reshape(shape)


def read_fashion_mnist(data_dir, rows):
    folder = os.path.join(data_dir, "fashion-mnist")
    images = read_idx(os.path.join(folder, "train-images-idx3-ubyte.gz"))[:rows]
    labels = read_idx(os.path.join(folder, "train-labels-idx1-ubyte.gz"))[:rows].long()
    return images, labels


class SeedDataset(torch.utils.data.Dataset):
    """What seed 000's torchvision.datasets.MNIST with ToTensor() and Normalize((0.1307,),
    (0.3081,)) does per sample: a PIL image made from the bytes, turned into a float tensor in
    [0, 1], normalised (torchvision's own steps, written out: torchvision is not needed)."""

    def __init__(self, images, labels):
        self.images, self.labels = images.numpy(), labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        image = Image.fromarray(self.images[i], mode="L")
        x = torch.from_numpy(numpy.array(image, numpy.uint8, copy=True))
        x = x.view(1, 28, 28).contiguous().float().div(255)
        x = x.sub_(torch.tensor([0.1307]).view(-1, 1, 1)).div_(torch.tensor([0.3081]).view(-1, 1, 1))
        return x.view(-1), int(self.labels[i])


def time_epochs(epochs, one_epoch):
    """Median seconds of `epochs` timed epochs after one untimed warm-up epoch."""
    one_epoch()
    times = []
    for _ in range(epochs):
        start = time.perf_counter()
        one_epoch()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def iris_epoch_seconds(data_dir, epochs):
    x, y = read_iris(data_dir)
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(4, 64), torch.nn.ReLU(), torch.nn.Linear(64, 32), torch.nn.ReLU(),
        torch.nn.Linear(32, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    criterion = torch.nn.CrossEntropyLoss()

    def epoch():  # seed 001: the whole training split in every step
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        loss.item()

    return time_epochs(epochs, epoch)


def linear_epoch_seconds(data_dir, epochs, loader):
    images, labels = read_fashion_mnist(data_dir, 10000)
    torch.manual_seed(0)
    model = torch.nn.Linear(784, 10)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.005)
    criterion = torch.nn.CrossEntropyLoss()
    if loader == "dataloader":  # seed 000: a DataLoader over a per-sample data set
        batches = torch.utils.data.DataLoader(
            SeedDataset(images, labels), batch_size=128, shuffle=True, num_workers=0)
    else:  # the data normalised once into one tensor, batches cut by a shuffled index
        x = images.float().div(255).sub(0.1307).div(0.3081).view(len(labels), -1)

        def tensor_batches():
            order = torch.randperm(len(labels))
            for start in range(0, len(labels), 128):
                index = order[start:start + 128]
                yield x[index], labels[index]

        batches = None

    def epoch():
        total = torch.zeros(())
        for bx, by in (batches if batches is not None else tensor_batches()):
            optimizer.zero_grad()
            loss = criterion(model(bx), by)
            loss.backward()
            optimizer.step()
            total += loss.detach()
        total.item()

    return time_epochs(epochs, epoch)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir")
    parser.add_argument("--repeats", type=int, default=5, help="timed epochs of MNIST (default 5)")
    args = parser.parse_args()
    cases = [
        ("iris_mlp", 200, lambda: iris_epoch_seconds(args.data_dir, 200)),
        ("mnist_linear dataloader", args.repeats,
         lambda: linear_epoch_seconds(args.data_dir, args.repeats, "dataloader")),
        ("mnist_linear tensor", args.repeats,
         lambda: linear_epoch_seconds(args.data_dir, args.repeats, "tensor")),
    ]
    for name, epochs, measure in cases:
        print(json.dumps({"case": name, "epochs": epochs, "epoch_seconds": measure(),
                          "torch": torch.__version__, "threads": torch.get_num_threads()}))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
