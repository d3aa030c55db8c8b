"""Calibration: learning a model (finder and faces) from the owner's labeled photos.

Calibration learns everything the reader needs from the owner's own labeled
photos, assuming no dice colour, tray, polarity or view:

1. **Size.** The die's side over the image's ``sqrt(width * height)``, from the labeled boxes (each
   box's side divided by ``|cos a| + |sin a|`` for the die's measured rotation
   ``a``, so a die lying at 45 degrees does not count as a bigger one), and how it grows
   across the photos when the camera sees the table obliquely (``size_slopes``); the
   shape of the boxes the owner draws around a die of that side (``box_shape``: their
   scale, and their width over height, foreshortened by an oblique camera), so that
   reading reports dice the way the owner labels them; and where, for the
   finder's window, the owner's box lies (a correction kept only when it
   reads held-out photos' boxes better, :mod:`vision.learning.box_train`).
2. **Face samples.** The colour the faces are read in: each die's own widest
   spread, or a fixed one that reads clearly more of the owner's dice right against
   other photos' dice (a marble's swirls otherwise drown its numerals,
   :mod:`vision.learning.face_channel`). Each labeled die's top-face patch and view,
   shifted, turned, zoomed, stretched, sheared and re-lit, in their four quarter
   turns, described (:mod:`vision.learning.face_samples`): the face classifier's
   samples, compared in their principal directions. Labeled boxes whose look
   disagrees with their label (read as another face by every other die) are
   reported, by file and line: a likely label mistake.
3. **Finder.** A linear window detector (:mod:`vision.reading.detect`), trained by
   :mod:`vision.learning.detect_train`; windows it still takes for dice become the face
   classifier's *background* samples, so that shoes, tokens or tray patterns are
   not read as dice, except those the face model reads sure as a face: a die the
   owner left without a label, named in a warning, and the finder trained again
   without taking it for a negative (:mod:`vision.learning.unlabeled`).
4. **Cocked limit, contrast floor and colour model.** The outline aspect of the
   owner's flat dice sets the cocked limit; the contrast of their marks, the floor
   under which a peak is no die; a histogram of the scenes' balanced colours lets
   the reader notice a large object never seen in calibration (a hand).
5. **Face threshold.** Each labeled die read without its own copies: where some
   come out as another face, the threshold under which a die is unsure rises, for
   every die and, more, for the pair of faces confused
   (:mod:`vision.learning.threshold`).

Which photos it learns from (the faces they show: a face its names hold and no die is
labeled with is warned of and left unlearned; a large set's seeded choice): :mod:`.photo_budget`.
Evaluation is :mod:`vision.learning.evaluate`; calibration with its own leave-photos-out
figures and warnings is :mod:`vision.learning.report`.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.errors import ModelError
from vision.learning.dataset import Dataset
from vision.learning.decoded import decode_each
from vision.learning.detect_train import Photo, at_face_scale
from vision.learning.die_size import (
    box_shape,
    face_aspect,
    label_side,
    look_reach,
    measure_works,
    own_sizes,
    size_slopes,
    unmeasured_warning,
    with_labelled_size,
)
from vision.learning.face_channel import choose_channel
from vision.learning.face_model import train
from vision.learning.face_samples import face_samples, labeled_rect
from vision.learning.finder_step import finder_step
from vision.learning.frame_cut import without_cut_dice
from vision.learning.label_check import label_lines, label_problems, relative_name
from vision.learning.photo_budget import unshown_faces, within_budget
from vision.learning.progress import Progress, quiet
from vision.learning.threshold import (
    few_dice_floor,
    held_out_reads,
    learned_threshold,
    pair_thresholds,
    pair_warning,
    raised_pairs,
    threshold_warning,
    tolerated_mistakes,
)
from vision.learning.turned_labels import turned_warning
from vision.learning.unlabeled import UnlabeledDie, unlabeled_dice, unlabeled_warning
from vision.reading.describe import light_gains
from vision.reading.detect import (
    FACE_DIE_PX,
    DetectorParams,
    face_side_at,
    marks_contrast,
    perspective_size,
)
from vision.reading.die_shape import orientation, outline_aspect, outline_size
from vision.reading.domain import learned_domain
from vision.reading.export_edges import find_edges
from vision.reading.exported import is_grey
from vision.reading.finder_maps import balance
from vision.reading.model import BACKGROUND, DEFAULT_THRESHOLD, PROJECTION_DIMS, FaceModel
from vision.reading.photo_scale import size_curves
from vision.reading.pixel_aspect import pixel_aspect, unstretched
from vision.reading.read import load_scaled, reduction
from vision.reading.scaling import image_length, shrink

MIN_PHOTOS = 2
FEW_PHOTOS = 10
# a peak whose marks stand out less than this share of the owner's faintest dice (their
# 2nd percentile) is no die: a finger, a card, the bare tray
CONTRAST_FLOOR = 0.5


def calibration_steps(photos: int) -> int:
    """The steps :func:`calibrate` reports for ``photos`` photos: two a photo (measuring,
    learning its faces), the colour, the finder's three, the boxes, the faces, the end."""
    return 2 * photos + 7


def calibrate(
    dataset: Dataset,
    face_set: str | None = None,
    progress: Progress = quiet,
    base: DetectorParams | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    seed: int = 0,
) -> FaceModel:
    """Learn a model (finder and faces) from a labeled dataset; ``progress(done, total, what)``.

    Raises:
        ModelError: too few photos, no labeled die, or labeled dice of only one face of
            several (a face no die is labeled with is warned of, and left unlearned).
        DataError: photos that cannot be decoded, each named.
    """
    if len(dataset.items) < MIN_PHOTOS:
        raise ModelError(
            f"{dataset.root}: {len(dataset.items)} photo(s); calibration needs at least "
            f"{MIN_PHOTOS} photos with every face shown (15 or more, in the light of the table, "
            "read best)"
        )
    params = with_labelled_size(base or DetectorParams(), dataset)
    unshown = unshown_faces(dataset)
    learned = within_budget(dataset, seed)
    if learned.chosen:  # the die's size as the photos learned from show it
        dataset = learned.dataset
        params = with_labelled_size(params, dataset)
    items = list(dataset.items)
    work_px = params.work_die_px
    total = calibration_steps(len(items))
    step = 0

    def tick(what: str) -> None:
        nonlocal step
        step += 1
        progress(step, total, what)

    # every photo decoded once, reduced as reading will (again below only if the size measured
    # in step 1 asks libjpeg for another reduction), its pixels made square again when the
    # photos were stretched to another shape (read so too); every unreadable photo named
    decoded = decode_each(items, params)
    # a die cut by the photo's edge shows neither its size nor its whole face: the finder
    # learns it, nothing else does (vision.learning.frame_cut)
    whole, cut = without_cut_dice(items, [(im.shape[1] * f, im.shape[0] * f) for im, f in decoded])
    if any(cut):  # a face labelled on cut dice only is not learned either
        unshown = unshown_faces(replace(dataset, items=tuple(whole)), "die whole in view")
    stretch = pixel_aspect(
        [
            d.w * image.shape[1] / (d.h * image.shape[0])
            for item, (image, _) in zip(whole, decoded, strict=True)
            for d in item.dice
        ]
    )
    # the photos' own sizes (the domain, below: a frame is checked against them as it is)
    photo_sizes = [(round(im.shape[1] * f), round(im.shape[0] * f)) for im, f in decoded]
    decoded = [(unstretched(image, stretch), factor) for image, factor in decoded]
    params = replace(params, pixel_aspect=stretch)
    # photos fitted into another shape with plain edges: the camera's frames are fitted so
    edges = None
    if stretch == 1.0 and len(set(photo_sizes)) == 1:
        boxes = [(d.cx - d.w / 2, d.cy - d.h / 2, d.cx + d.w / 2, d.cy + d.h / 2)
                 for item in items for d in item.dice]  # fmt: skip
        edges = find_edges([image for image, _ in decoded], boxes)
    params = replace(params, export_edges=edges.to_values() if edges else ())
    # photos made grey (a labelling service's step): colour frames are read grey too
    params = replace(params, grey=all(is_grey(image) for image, _ in decoded))
    # 1. size: each labeled die's side, its box freed of its rotation
    sides: list[float] = []
    die_px: list[float] = []  # each labeled die's side in its photo's pixels
    where_on: list[tuple[float, float]] = []  # each labeled die's centre, shares of w and h
    label_sides: list[tuple[float, float]] = []  # each labeled box's width and height
    turns: list[float] = []  # each die's |cos|+|sin| of its rotation (its box over its side)
    photo_of: list[int] = []  # each die's photo
    for k, (item, (image, factor)) in enumerate(zip(whole, decoded, strict=True)):
        face = at_face_scale(image, factor, params)
        gray = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
        h, w = face.shape[:2]
        for d in item.dice:
            x, y, bw, bh = d.box_px(w, h)
            a = math.radians(orientation(gray, x + bw / 2, y + bh / 2, label_side(bw, bh)))
            turns.append(abs(math.cos(a)) + abs(math.sin(a)))
            sides.append(math.sqrt(bw * bh) / turns[-1] / image_length(w, h))
            label_sides.append((bw / image_length(w, h), bh / image_length(w, h)))
            where_on.append((d.cx, d.cy))
            die_px.append(sides[-1] * image_length(*photo_sizes[k]))
            photo_of.append(k)
        tick(f"measuring {item.image.name}")
    if not sides:
        raise ModelError(f"{dataset.root}: no labeled die to calibrate from")
    # (each side is a fraction of the image's length, whatever the scale it was measured at)
    most = max(len(item.dice) for item in items)
    slopes = size_slopes(np.array(where_on), np.array(sides))
    params = replace(
        params,
        die_frac=float(np.median(sides)),
        max_dice=max(params.max_dice, 2 * most),
        size_slope_x=slopes["size_slope_x"],
        size_slope_y=slopes["size_slope_y"],
    )
    # photos taken nearer or farther (by hand) are each learned at their own dice's size,
    # and reading measures it in each photo (vision.reading.photo_scale)
    params, scales, hand_held = own_sizes(
        params, np.array(sides), np.array(where_on), np.array(photo_of), len(items)
    )
    found = [  # the side reading will give each labeled die's box, as a share of the length
        params.die_frac * scales[k] * perspective_size(params, u, v) * turn
        for (u, v), turn, k in zip(where_on, turns, photo_of, strict=True)
    ]
    shape = box_shape(np.array(label_sides), np.array(found))
    params = replace(
        params,
        box_scale=shape["box_scale"],
        box_aspect=shape["box_aspect"],
        face_aspect=face_aspect(params, shape["box_aspect"]),
    )
    for k, item in enumerate(items):
        own_size = replace(params, die_frac=params.die_frac * scales[k])
        if reduction(item.image, own_size) != decoded[k][1]:
            image, factor = load_scaled(item.image, own_size)
            decoded[k] = (unstretched(image, stretch), factor)

    photos: list[Photo] = []
    dies: list[tuple[int, float, float, float, int]] = []  # photo, cx, cy, angle, class
    where: list[str] = []
    aspects: list[float] = []
    contrasts: list[float] = []
    outline_sides: list[float] = []  # the dice measured as reading measures them (the domain)
    outline_aspects: list[float] = []
    light: list[NDArray[Any] | None] = []  # each photo's gains to neutral light (reading/read.py)
    for item, (image, factor), scale in zip(items, decoded, scales, strict=True):
        face = at_face_scale(image, factor, params, scale)
        light.append(light_gains(face))
        work = shrink(face, work_px / FACE_DIE_PX)
        gray = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
        h, w = face.shape[:2]
        centers, boxes, angles = [], [], []
        numbers = label_lines(item, dataset.pose)
        for line, d in enumerate(item.dice, start=1):
            x, y, bw, bh = d.box_px(w, h)
            cx, cy = x + bw / 2, y + bh / 2
            at_place = face_side_at(params, cx, cy, w, h)
            angle = orientation(gray, cx, cy, at_place, params.face_aspect)
            centers.append((cx, cy))
            boxes.append((x, y, bw, bh))
            angles.append(angle)
            if d in cut[len(photos)]:
                continue
            aspects.append(outline_aspect(face, gray, cx, cy, FACE_DIE_PX))
            contrasts.append(marks_contrast(face, cx, cy, params))
            measured, aspect = outline_size(gray, cx, cy, FACE_DIE_PX)
            if measured > 0:
                outline_sides.append(measured)
                outline_aspects.append(aspect)
            dies.append((len(photos), cx, cy, angle, d.cls))
            number = numbers[line - 1] if line <= len(numbers) else line
            where.append(f"{relative_name(item.label, dataset.root)}: line {number}")
        photos.append(Photo(item, face, balance(work), centers, boxes, angles))
        tick(f"learning faces {item.image.name}")
    del decoded  # the photos at the face and working scales are all that is needed now
    if not dies:
        raise ModelError(f"{dataset.root}: no labeled die to calibrate from")
    die_cls = np.array([d[4] for d in dies])
    faces = [photo.face for photo in photos]
    channel = choose_channel(
        faces,
        light,
        [(k, labeled_rect(faces[k], cx, cy, a, params), c) for k, cx, cy, a, c in dies],
        np.random.default_rng(seed + 4),
        params.face_aspect,
    )
    tick("choosing the colour faces are read in")
    samples = face_samples(faces, light, dies, params, channel.ink, seed)
    f_all, keep, as_labeled = samples.feats, samples.plain, samples.as_labeled
    problems = label_problems(
        f_all[as_labeled],
        f_all[keep],
        samples.labels[keep],
        samples.groups[keep],
        die_cls,
        where,
        dataset.names,
        np.array([d[0] for d in dies]),
    )

    # 3. the finder, and its threshold from photos each finder did not learn from
    # (peaks showing no marks are dropped before counting, as the reader drops them)
    params = replace(params, min_contrast=CONTRAST_FLOOR * float(np.percentile(contrasts, 2)))
    # cocked limit from the owner's flat dice (a few leaning ones may be among them)
    if aspects:
        limit = max(1.33, 1.15 * float(np.percentile(aspects, 97)))
        params = replace(params, cocked_aspect=min(limit, 3.5))
    finder = finder_step(photos, params, light, channel.ink, seed, tick)
    tick("training the face classifier")
    name = face_set or dataset.root.name
    l_all, groups_all = samples.labels, samples.groups
    model = train(
        name, dataset.names, f_all, l_all, finder.detector, threshold, groups_all, PROJECTION_DIMS
    )
    # the model keeps its samples ordered by face: find each die's rows there
    order = np.argsort(l_all, kind="stable")
    moved_to = np.empty_like(order)
    moved_to[order] = np.arange(len(order))
    mislabeled = [i for i, _ in problems]
    held_out = held_out_reads(model, moved_to[as_labeled], groups_all[order], leave_out=mislabeled)
    guess = held_out.guess
    model.threshold = learned_threshold(guess, held_out.conf, die_cls, threshold, ignore=mislabeled)
    forgiven = tolerated_mistakes(guess, held_out.conf, die_cls, ignore=mislabeled)
    pairs = pair_thresholds(held_out, die_cls, len(dataset.names), forgiven)
    confused = int(np.delete(guess != die_cls, mislabeled).sum())
    model.pair_thresholds = pairs
    # a place read sure as a face is a die the owner left unlabelled, not background: the
    # finder learns again without taking those for negatives (and its background again)
    labelled = [photo.boxes for photo in photos]
    missed = [die for _, die in unlabeled_dice(model, finder.places, finder.turns, labelled)]
    again: list[tuple[int, UnlabeledDie]] = []  # named by the finder trained again
    if missed:
        ignore = [(die.photo, die.x, die.y) for die in missed]
        finder = finder_step(photos, params, light, channel.ink, seed, lambda _: None, ignore)
        again = unlabeled_dice(model, finder.places, finder.turns, labelled)
        missed += [die for _, die in again]
    left_out = {i for i, _ in again}
    bg_feats = [row for i, turns in enumerate(finder.turns) if i not in left_out for row in turns]
    detector, params = finder.detector, finder.params
    measure = (False, 0.0, 0.0)  # reading measures each photo's die size; how well, how needed
    if hand_held:
        at_own_size = [photo.face for photo in photos]
        detector = replace(detector, size_curves=size_curves(at_own_size, detector))
        measure = measure_works(at_own_size, scales, detector)
        under, over = look_reach(scales)
        params = replace(
            params, photo_scale=measure[0], hand_held=True, look_under=under, look_over=over
        )
        curves = detector.size_curves if measure[0] else None  # (a fixed camera's: none)
        detector = replace(detector, params=params, size_curves=curves)
    model.detector = detector
    if bg_feats:
        model = FaceModel(
            model.face_set,
            model.names,
            np.concatenate([model.samples, model.project(np.stack(bg_feats))]),
            np.concatenate([model.labels, np.full(len(bg_feats), BACKGROUND)]),
            detector,
            model.threshold,
            model.novelty,
            mean=model.mean,
            basis=model.basis,
        )
    model.pair_thresholds = pairs
    # raised last: the dice left unlabelled and the background were found as before
    from_mistakes, counted = model.threshold, len(die_cls) - len(mislabeled)
    floor = few_dice_floor(threshold, counted)
    model.threshold = max(from_mistakes, floor)
    model.ink = channel.ink
    model.domain = learned_domain(photo_sizes, die_px, outline_sides, outline_aspects)
    turned = turned_warning(dataset.turned)
    warnings = [w for _, w in problems] + [w for w in (unshown, turned) if w]
    if hand_held and not measure[0]:
        warnings.append(unmeasured_warning(scales, measure[1]))
    for die in missed:
        item, (w, h) = items[die.photo], photo_sizes[die.photo]
        face_h, face_w = photos[die.photo].face.shape[:2]
        warnings.append(
            unlabeled_warning(
                relative_name(item.label, dataset.root),
                item.image.name,
                (die.x * w / face_w, die.y * h / face_h),
                dataset.names[die.face],
                die.confidence,
            )
        )
    asks_more = threshold_warning(from_mistakes, floor, threshold, confused, counted)
    if asks_more:
        warnings.append(asks_more)
    by_mistakes = (
        pair_thresholds(held_out, die_cls, len(dataset.names), [*forgiven, *mislabeled]) < pairs
    )
    look_alike = pair_warning(pairs, model.threshold, dataset.names, by_mistakes)
    if look_alike:
        warnings.append(look_alike)
    if len(items) < FEW_PHOTOS:
        warnings.append(
            f"only {len(items)} photos: {FEW_PHOTOS} or more (every face several times, dice "
            "spread over the whole tray, touching too) make a reader worth trusting"
        )
    model.report = json.dumps(
        {
            "photos": len(items),
            "dice": finder.n_dice,
            "learned_from": learned.to_json(),  # the photos within calibration's budget
            "die_frac": round(params.die_frac, 5),
            # photos taken from different distances: each learned at its own size, and read
            # at the size measured in it when that measure found the calibration photos'
            "hand_held": hand_held,
            "look_reach": [-params.look_under, params.look_over],  # the sizes a look may reach
            "photo_scale": {
                "measured": measure[0],
                "missed": round(measure[1], 3),  # median |log(measured / labelled)|
                "unmeasured": round(measure[2], 3),  # the same, read at the learned size
            },
            "threshold": round(params.threshold, 3),
            "face_threshold": round(model.threshold, 3),
            "pair_thresholds": {
                f"{dataset.names[a]}/{dataset.names[b]}": round(bar, 3)
                for bar, a, b in raised_pairs(pairs, model.threshold)
            },
            "finders": detector.finders,  # one per colour group of the owner's dice
            "cocked_aspect": round(params.cocked_aspect, 3),
            "box_scale": round(params.box_scale, 3),
            "box_aspect": round(params.box_aspect, 3),
            "face_aspect": round(params.face_aspect, 3),
            "pixel_aspect": round(params.pixel_aspect, 3),  # the photos' stretch (1: none)
            "export_edges": [round(v, 4) for v in params.export_edges[:4]],  # (none: [])
            "grey": params.grey,
            "box_fit": {  # held-out dice where the finder peaked: mean IoU with their labels
                "kept": finder.box_fitting.box_fit is not None,
                "iou_placed": round(finder.box_fitting.iou_placed, 3),
                "iou_corrected": round(finder.box_fitting.iou_corrected, 3),
            },
            "face_channel": channel.to_json(),
            "label_mistakes": len(problems),  # likely ones, each named in the warnings
            "unlabeled_dice": len(missed),  # each named in the warnings too
            "unlearned_faces": list(model.unlearned),  # no die labeled: never read
            "background_samples": len(bg_feats) // 4,
            "warnings": warnings,
        }
    )
    tick("done")
    return model
