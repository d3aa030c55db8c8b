"""What a throw is worth (docs/rules.md §3): warrior combos, card combos, the symbol sum.

Matching with wild stars is a counting argument: a combo is made when the
stars can cover what the other dice lack, i.e. the sum over non-star symbols of
``max(0, needed - shown)`` is at most the number of stars. Extra dice are
unused. A :class:`ThrowScorer` is bound to one fighter, its cards and the
variants, and memoises by the multiset of faces (462 of them for 6 dice), so
the advisor and simulations can call it in tight loops.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from controller.core.symbols import ATTACK_SYMBOLS, Symbol
from controller.rules.dice import STAR_INDEX, Counts, counts_of
from controller.rules.variants import DEFAULT_VARIANTS, Variants
from controller.rules.warriors import Combo, Fighter

_ATTACK_INDICES = tuple(list(Symbol).index(s) for s in ATTACK_SYMBOLS)
_SPHERE_INDEX = list(Symbol).index(Symbol.SPHERE)


class OptionKind(StrEnum):
    """Where an option's damage comes from."""

    COMBO = "combo"  # a warrior combo
    CARD = "card"  # the combo printed on a card in hand
    SUM = "sum"  # the symbol sum (doubled for a special combo)
    NONE = "none"  # a Story attempt making no combo, with story_combos_only (§12): 0


SUM_OPTION = "sum"
"""The symbol sum's name among a throw's options (a combo or a card has its own name)."""
NO_COMBO_OPTION = "no combo"
"""The name of the one option of a Story attempt that makes no combo when the sum is not
allowed (variant ``story_combos_only``, :func:`cashable`)."""


class CardDefence(StrEnum):
    """What defence an attack card allows (docs/rules.md §4)."""

    ANY = "cards_or_dice"
    NONE = "none"
    INVULNERABLE_ONLY = "invulnerable_only"


@dataclass(frozen=True)
class CardCombo:
    """The combo printed on a card in hand, as scoring needs it.

    ``damage`` is what the card deals when its combo is made (0 when its effect
    is not damage); the game flow applies the card's other effects.
    """

    name: str
    symbols: tuple[Symbol, ...]
    damage: int = 0
    defence: CardDefence = CardDefence.ANY
    invulnerable: bool = False
    sphere_only: bool = False  # as an answer: to a sphere attack only (A l.344, l.366)

    @property
    def holds_sphere(self) -> bool:
        """Whether the card's combo asks for a sphere."""
        return Symbol.SPHERE in self.symbols


@dataclass(frozen=True)
class Option:
    """One way to cash a throw in, with its damage."""

    kind: OptionKind
    name: str
    damage: int
    doubled: bool = False
    holds_sphere: bool = False
    card: CardCombo | None = None

    def to_json(self) -> dict[str, object]:
        """The option as the CLI's JSON prints it."""
        out: dict[str, object] = {"kind": str(self.kind), "name": self.name, "damage": self.damage}
        if self.kind is OptionKind.SUM:
            out["doubled"] = self.doubled
        return out


@dataclass(frozen=True)
class ThrowScore:
    """Every option a final throw allows, and the best one (most damage; first on ties)."""

    counts: Counts
    options: tuple[Option, ...]
    best: Option

    def option(self, name: str) -> Option | None:
        """The option called ``name`` (case-insensitive); :data:`SUM_OPTION` names the sum."""
        key = name.strip().casefold()
        for opt in self.options:
            if opt.name.strip().casefold() == key or (
                key == SUM_OPTION and opt.kind is OptionKind.SUM
            ):
                return opt
        return None


def need_vector(symbols: Sequence[Symbol]) -> Counts:
    """How many of each symbol a combo needs (stars in a combo are not allowed)."""
    return counts_of(symbols)


def makes(counts: Counts, need: Counts) -> bool:
    """Whether dice with ``counts`` make a combo needing ``need`` (stars wild)."""
    missing = 0
    for i in range(6):
        if i != STAR_INDEX and need[i] > counts[i]:
            missing += need[i] - counts[i]
    return missing <= counts[STAR_INDEX]


def symbol_sum(
    counts: Counts, values: Sequence[int], variants: Variants = DEFAULT_VARIANTS
) -> tuple[int, bool]:
    """The symbol sum and whether the special combo doubled it (docs/rules.md §3).

    Doubling: every die shows the same attack symbol; with the
    ``star_counts_for_double`` variant, stars count as that symbol (at least one
    die must show the attack symbol itself).
    """
    total = 0
    for i in _ATTACK_INDICES:
        total += counts[i] * values[i]
    dice = sum(counts)
    doubled = False
    for i in _ATTACK_INDICES:
        shown = counts[i]
        if shown == 0:
            continue
        if shown == dice or (
            variants.star_counts_for_double and shown + counts[STAR_INDEX] == dice
        ):
            doubled = True
        break  # only the first attack symbol present can be the repeated one
    return (total * 2 if doubled else total), doubled


def card_option_name(card: str) -> str:
    """The option of an Attack card named as one of the fighter's own combos (a real deck
    may print one): told apart from the combo by its name, which a choice names."""
    return f"{card} (card)"


class ThrowScorer:
    """Scores final throws for one fighter, its card combos and the variants."""

    def __init__(
        self,
        fighter: Fighter,
        cards: Sequence[CardCombo] = (),
        variants: Variants = DEFAULT_VARIANTS,
    ) -> None:
        self.fighter = fighter
        self.cards = tuple(cards)
        self.variants = variants
        self._values = fighter.value_vector()
        self._combos: tuple[tuple[Combo, Counts], ...] = tuple(
            (c, need_vector(c.symbols)) for c in fighter.combos
        )
        self._cards: tuple[tuple[CardCombo, Counts], ...] = tuple(
            (c, need_vector(c.symbols)) for c in self.cards
        )
        combo_keys = {c.name.strip().casefold() for c in fighter.combos}
        self._card_names = {
            c.name: card_option_name(c.name) if c.name.strip().casefold() in combo_keys else c.name
            for c in self.cards
        }
        self._cache: dict[Counts, ThrowScore] = {}

    def score(self, dice: Sequence[Symbol]) -> ThrowScore:
        """Every option the dice allow and the best one."""
        return self.score_counts(counts_of(dice))

    def score_counts(self, counts: Counts) -> ThrowScore:
        """Like :meth:`score`, from a counts vector in Symbol order."""
        hit = self._cache.get(counts)
        if hit is None:
            hit = self._cache[counts] = self._compute(counts)
        return hit

    def _compute(self, counts: Counts) -> ThrowScore:
        options: list[Option] = []
        for combo, need in self._combos:
            if makes(counts, need):
                options.append(
                    Option(OptionKind.COMBO, combo.name, combo.damage, False, combo.holds_sphere)
                )
        for card, need in self._cards:
            if makes(counts, need):
                options.append(
                    Option(
                        OptionKind.CARD,
                        self._card_names[card.name],
                        card.damage,
                        False,
                        card.holds_sphere,
                        card,
                    )
                )
        total, doubled = symbol_sum(counts, self._values, self.variants)
        # A doubled sum of spheres is the special combo of spheres: it holds a sphere.
        sphere_special = doubled and counts[_SPHERE_INDEX] > 0
        options.append(Option(OptionKind.SUM, SUM_OPTION, total, doubled, sphere_special))
        best = options[0]
        for opt in options[1:]:
            if opt.damage > best.damage:
                best = opt
        return ThrowScore(counts, tuple(options), best)


NO_COMBO = Option(OptionKind.NONE, NO_COMBO_OPTION, 0)
"""The one option of a throw making no combo when the symbol sum is not allowed."""


def cashable(options: Sequence[Option], *, sum_allowed: bool = True) -> tuple[Option, ...]:
    """What a throw may be cashed in for, of the ``options`` a :class:`ThrowScorer` lists:
    every one of them, or with ``sum_allowed`` False the combos and cards only and, when
    the throw makes none, the one option :data:`NO_COMBO`, inflicting 0 (a Story attempt
    with the variant ``story_combos_only``, docs/rules.md §12). The engine
    (``game.engine.attack_options``) and the advisor both cash in through this; whether
    the sum is allowed is the engine's to say (``game.engine.sum_allowed``)."""
    if sum_allowed:
        return tuple(options)
    made = tuple(o for o in options if o.kind is not OptionKind.SUM)
    return made or (NO_COMBO,)


_SCORERS_MAX = 256  # per fighter


def scorer_for(
    fighter: Fighter, cards: Sequence[CardCombo] = (), variants: Variants = DEFAULT_VARIANTS
) -> ThrowScorer:
    """The scorer of this fighter with these cards and variants, kept by the fighter
    (:attr:`Fighter.memo`), so a fighter that is kept (e.g. by the game data) scores fast."""
    key = ("scorer", tuple(cards), variants)
    hit = fighter.memo.get(key)
    if isinstance(hit, ThrowScorer):
        return hit
    if len(fighter.memo) >= _SCORERS_MAX:
        fighter.memo.clear()
    scorer = ThrowScorer(fighter, cards, variants)
    fighter.memo[key] = scorer
    return scorer
