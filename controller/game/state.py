"""Game state: a cheap-to-copy snapshot of a Tournament-of-Power game.

The state is plain data: tuples, small named tuples and a few dicts that
:meth:`GameState.copy` duplicates (a game never holds more than 52 warriors, so
a copy costs microseconds). Static data (board, roster, cards) lives in
:class:`~controller.gamedata.bundle.GameData` and is shared, never copied.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple

from controller.core.errors import IllegalActionError
from controller.core.kinds import GameKind
from controller.core.symbols import Symbol
from controller.gamedata.bundle import GameData as GameData  # re-exported for consumers
from controller.gamedata.cards import Card, Deck, EffectKind
from controller.rules.combat_types import AttackResult
from controller.rules.scoring import CardCombo
from controller.rules.variants import DEFAULT_VARIANTS, Variants

if TYPE_CHECKING:
    from controller.game.story import StoryState

MIN_PLAYERS = 2
MAX_PLAYERS = 6
HAND_LIMIT = 5
FUSIONS: dict[str, tuple[str, str]] = {
    "Kefla": ("Kale", "Caulifla"),
    "Anilaza": ("Koichiarator", "Paparoni"),
}
NOT_DRAFTED = frozenset(FUSIONS)  # docs/rules.md §11 (A): Kefla and Anilaza cannot be drafted
MAX_DUEL_COMBATS = 30  # engine decision: a duel with no elimination after 30 combats -> shared
MAX_STORY_PLAYERS = 4  # docs/rules.md §12: P1, P3 green; P2, P4 red


class Length(StrEnum):
    """How long a game lasts (docs/rules.md §11)."""

    ROUNDS10 = "rounds10"
    ROUNDS5 = "rounds5"
    MINUTES45 = "minutes45"


class Phase(StrEnum):
    """Where the game waits."""

    FIRST_PLAYER = "first_player"  # input: FirstPlayerChosen
    DRAFT = "draft"  # action: Draft
    SHUFFLE = "shuffle"  # input: Shuffled for each deck still unshuffled
    PLACE = "place"  # action: Place
    STARTER = "starter"  # action: ChooseStarter (who is the youngest)
    DISCARD = "discard"  # action: Discard
    START_CARD = "start_card"  # action: PlayCard or Pass
    MOVE = "move"  # action: Move
    FUSION_OFFER = "fusion_offer"  # action: TryFusion, PlayCard (a Fusion card) or Pass
    FUSION_ROLL = "fusion_roll"  # input: DieRolled
    TRANSFORM = "transform"  # input: DieRolled (transformation)
    RETRY_OFFER = "retry_offer"  # action: PlayCard (transformation retry) or Pass
    ATTACK = "attack"  # input: DiceThrown; action: ChooseAttack
    DEFENCE_CHOICE = "defence_choice"  # action: Defend
    REFLECT_CHOICE = "reflect_choice"  # action: Defend (the attacker, its reflected sphere)
    DEFENCE_ROLL = "defence_roll"  # input: DiceThrown; action: StopRolling (the attacker's
    # own roll against its reflected sphere: Combat.answer is REFLECT or REFLECT_CARD)
    FLEE = "flee"  # action: StepAside (the defender fleeing with Solar Flare)
    COUNTER_OFFER = "counter_offer"  # action: CounterAttack or Pass
    REWARD = "reward"  # action: ChooseReward
    STEP_ASIDE = "step_aside"  # action: StepAside
    RESCUE_OFFER = "rescue_offer"  # action: PlayCard (a rescue card) or Pass
    EXTRA_OFFER = "extra_offer"  # action: PlayCard (extra combat), ExtraCombat, Pass
    DUEL_PICK = "duel_pick"  # action: DuelPick
    STORY_FIGHT = "story_fight"  # Story mode: action ChooseFight (a square with several fights)
    OVER = "over"


class WarriorDeck(StrEnum):
    """The green-space warriors' deck, shuffled like the card decks (a ``Shuffled`` deck)."""

    WARRIORS = "warriors"


WARRIOR_DECK = WarriorDeck.WARRIORS

ShuffledDeck = Deck | WarriorDeck
"""A deck the set-up shuffles: a card deck or the warriors' deck."""


class Answer(StrEnum):
    """How the defender (or, for REFLECT, the attacker) answers an attack."""

    NONE = "none"  # no answer: the damage goes through
    DODGE = "dodge"  # a dodge roll
    FLEE = "flee"  # Solar Flare: the defender flees
    CARD = "card"  # a defence card (its name in ``Combat.answer_card``)
    REFLECT = "reflect"  # the attacker's own roll to dodge its reflected sphere
    REFLECT_CARD = "reflect_card"  # the attacker's card against its reflected sphere (A l.110)


@dataclass(frozen=True)
class CardsPlayed:
    """A seat's cards played this turn, as the limits of docs/rules.md §9 count them."""

    attack_or_special: int = 0
    special: int = 0
    defence: int = 0
    extra_combat: int = 0
    counter_attack: int = 0

    def after(self, card: Card) -> CardsPlayed:
        """The counts once ``card`` is played."""
        attack_special = card.deck in (Deck.ATTACK, Deck.SPECIAL)
        return CardsPlayed(
            self.attack_or_special + attack_special,
            self.special + (card.deck is Deck.SPECIAL),
            self.defence + (card.deck is Deck.DEFENCE),
            self.extra_combat + (card.effect.kind is EffectKind.EXTRA_COMBAT),
            self.counter_attack + (card.effect.kind is EffectKind.COUNTER_ATTACK),
        )

    def problem(self, card: Card, variants: Variants, turn: bool) -> str | None:
        """Why ``card`` would break the per-turn limits (None: it may be played). ``turn``:
        the seat is the player whose turn it is; B's limit binds only that player, never a
        defender answering in the turn (docs/rules.md §9)."""
        if card.effect.kind is EffectKind.EXTRA_COMBAT and self.extra_combat >= 1:
            return "at most one card granting an extra combat per turn (A l.306)"
        if card.deck is Deck.SPECIAL and self.special >= 1:
            return "at most one Special card per turn (A l.370)"
        if card.effect.kind is EffectKind.COUNTER_ATTACK and self.counter_attack >= 1:
            return "at most one Counter-Attack card per turn (A l.356)"
        if turn and variants.two_attack_or_special_cards:
            if card.deck in (Deck.ATTACK, Deck.SPECIAL) and self.attack_or_special >= 2:
                return "at most two Attack or Special cards during your turn (B l.351)"
            if card.deck is Deck.DEFENCE and self.defence >= 1:
                return "a third card during your turn only if it is a Defence card (B l.351)"
        return None


NOTHING_PLAYED = CardsPlayed()


class Piece(NamedTuple):
    """A warrior in the game. ``seat`` None: a green-space warrior (nobody's); ``space``
    None: off the board."""

    name: str
    seat: int | None
    space: int | None = None
    damage: int = 0
    eliminated: bool = False
    fused_into: str | None = None  # set on a fusion partner while the fusion stands
    last_space: int | None = None  # where it stood when eliminated


class Combat(NamedTuple):
    """The combat in progress. ``striker``/``target`` are who attacks now (the attacker and
    the defender, swapped for the counter-attack); the ``defence_*`` fields are the
    defence roll's (the target's, or the striker's dodging its reflected sphere)."""

    attacker: str
    defender: str
    attacker_seat: int
    defender_seat: int  # for a green-space warrior: the player who acts for it
    green: bool
    adjacent: bool  # a second combat against a neighbour (no landing, no step aside)
    origin: int | None  # where the attacker moved from (None: no board, Story mode)
    arena: int | None  # the space fought on (the defender's, or the green space; None: Story)
    striker: str  # who attacks now: the attacker, or the defender counter-attacking
    target: str  # who is attacked now
    attacker_form: str | None = None  # None: the base form
    defender_form: str | None = None
    to_transform: tuple[str, ...] = ()
    retried: tuple[str, ...] = ()
    retry_target: int | None = None  # the retry card's target: the last form on it (B l.423)
    counter: bool = False
    pool: int = 0
    max_rerolls: int = 0
    striker_support: int = 0  # the striker's support dice for this attack
    target_support: int = 0  # the target's
    throws: tuple[tuple[Symbol, ...], ...] = ()
    evidence: tuple[str | None, ...] = ()  # each throw's camera frame (None: not kept)
    option: str | None = None  # the option cashed in, once chosen
    answer: Answer | None = None  # the defence roll's answer, once chosen
    answer_card: str | None = None  # the defence card rolled for (answer CARD)
    defence_pool: int = 0
    defence_max_rerolls: int = 0
    defence_throws: tuple[tuple[Symbol, ...], ...] = ()
    cards: tuple[CardCombo, ...] = ()  # the striker's attack cards, fixed for the attempt
    probe: AttackResult | None = None  # the attack resolved with no answer (cached)
    split_after: tuple[Piece, ...] = ()  # fusion for one attack: the partners to restore
    defender_split_after: tuple[Piece, ...] = ()  # the same for a fused defender
    fusers: tuple[str, ...] = ()  # warriors still offered a fusion, card or roll (attacker first)
    settled: bool = False  # the end of the combat began: the forms' costs are paid
    down: tuple[str, ...] = ()  # the fighters eliminated (once settled), rescued ones removed
    by_cost: tuple[str, ...] = ()  # those of ``down`` only their own form's cost eliminated
    falling: tuple[str, ...] = ()  # the eliminated warriors still offered a rescue card
    duel: bool = False


RULES_REVISION = 8
"""The rules' revision, recorded in each journal: a game replays and plays on by the rules
it began with (1, journals without it, 2 to 8: docs/rules.md "Revisions")."""


@dataclass(frozen=True)
class GameConfig:
    """What a game is set up with."""

    players: tuple[str, ...]
    length: Length = Length.ROUNDS10
    variants: Variants = DEFAULT_VARIANTS
    game_id: str = ""
    colours: tuple[str, ...] = ()  # token colour of each seat (optional; names, e.g. "orange")
    kind: GameKind = GameKind.TOURNAMENT  # or Story mode (docs/rules.md §12)
    rules_revision: int = RULES_REVISION

    @property
    def story(self) -> bool:
        """Whether this is a Story-mode game (docs/rules.md §12)."""
        return self.kind is GameKind.STORY

    @property
    def timed(self) -> bool:
        """Whether the game runs on the 45-minute clock: a Story game is its 13 squares
        (B l.231), whatever length it was given."""
        return self.length is Length.MINUTES45 and not self.story

    @property
    def team_size(self) -> int:
        """Warriors per team: 6 (A l.25); 4 in the 5-round game with B's variant (§11)."""
        if self.length is Length.ROUNDS5 and self.variants.four_warriors_in_short_game:
            return 4
        return 6

    @property
    def rounds(self) -> int | None:
        """Rounds to play, or None for the 45-minute game."""
        return {Length.ROUNDS10: 10, Length.ROUNDS5: 5}.get(self.length)

    def check(self) -> None:
        """Raises IllegalActionError: not a dice game, wrong number of players or empty names."""
        if not self.kind.plays_dice:
            raise IllegalActionError(f"{self.kind.value} is a companion mode, not the dice game")
        if not MIN_PLAYERS <= len(self.players) <= MAX_PLAYERS:
            raise IllegalActionError(
                f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(self.players)}"
            )
        if self.story and not MIN_PLAYERS <= len(self.players) <= MAX_STORY_PLAYERS:
            raise IllegalActionError(
                f"Story mode is for {MIN_PLAYERS} to {MAX_STORY_PLAYERS} players, "
                f"got {len(self.players)}"
            )
        if any(not p.strip() for p in self.players):
            raise IllegalActionError("every player needs a name")
        if len(set(self.players)) != len(self.players):
            raise IllegalActionError("two players have the same name")
        if self.colours and (
            len(self.colours) != len(self.players) or len(set(self.colours)) != len(self.colours)
        ):
            raise IllegalActionError("give each player a different colour (one per seat)")

    def to_dict(self) -> dict[str, object]:
        """JSON-able form (stored in the journal; a Tournament game's form has no ``mode``)."""
        d: dict[str, object] = {
            "players": list(self.players),
            "length": self.length.value,
            "variants": list(self.variants.enabled()),
            "game_id": self.game_id,
            "colours": list(self.colours),
            "rules_revision": self.rules_revision,
        }
        if self.story:
            d["mode"] = self.kind.value
        return d

    @classmethod
    def from_dict(cls, d: dict[str, object]) -> GameConfig:
        """Inverse of :meth:`to_dict` (no ``rules_revision``: a journal of revision 1)."""
        players = d.get("players", [])
        revision = d.get("rules_revision", 1)
        variants = d.get("variants", [])
        colours = d.get("colours", [])
        return cls(
            tuple(str(p) for p in players) if isinstance(players, list) else (),
            Length(str(d.get("length", "rounds10"))),
            Variants.from_names(str(v) for v in variants)
            if isinstance(variants, list)
            else DEFAULT_VARIANTS,
            str(d.get("game_id", "")),
            tuple(str(c) for c in colours) if isinstance(colours, list) else (),
            GameKind.STORY if d.get("mode") == GameKind.STORY.value else GameKind.TOURNAMENT,
            revision if isinstance(revision, int) else 1,
        )


class GameState:
    """One moment of a game. Treat as immutable: :func:`apply` returns a new one."""

    __slots__ = (
        "combat",
        "combats",
        "config",
        "damage_bonus",
        "data",
        "decks",
        "duel_combats",
        "duel_picks",
        "event_card",
        "event_cards_turned",
        "events_applied",
        "extra_granted",
        "extra_rounds",
        "fighter",
        "first",
        "fought",
        "green_deck",
        "hands",
        "log_combats",
        "move_bonus",
        "occ",
        "pending_draws",
        "phase",
        "pieces",
        "played",
        "round",
        "seat",
        "shuffled",
        "story",
        "teams",
        "tied",
        "time_up",
        "winners",
    )  # fmt: skip

    def __init__(self, data: GameData, config: GameConfig) -> None:
        n = len(config.players)
        self.data = data
        self.config = config
        self.phase = Phase.FIRST_PLAYER
        self.seat = 0  # whose turn (or whose pick / placement)
        self.first = 0
        self.round = 0  # 1-based once play starts
        self.pieces: dict[str, Piece] = {}
        self.occ: dict[int, str] = {}
        self.teams: tuple[tuple[str, ...], ...] = ((),) * n
        self.hands: tuple[tuple[str, ...], ...] = ((),) * n
        self.decks: dict[Deck, tuple[str, ...]] = {}
        self.green_deck: tuple[str, ...] = ()
        self.shuffled: frozenset[ShuffledDeck] = frozenset()
        self.played: tuple[CardsPlayed, ...] = (NOTHING_PLAYED,) * n  # per seat, this turn
        self.move_bonus = 0
        self.damage_bonus = 0
        self.extra_granted = False  # an event card grants a second combat this turn
        self.combats = 0  # combats this turn
        self.fighter: str | None = None  # the turn's last combat's attacker (A l.247)
        self.fought: tuple[str, ...] = ()  # its foe, a fused one's partners too (A l.209, l.261)
        self.pending_draws: tuple[Deck, ...] = ()
        self.event_card: str | None = None
        self.event_cards_turned = 0  # in the whole game (B l.371: 30 in 10 rounds of 3)
        self.combat: Combat | None = None
        self.time_up = False
        self.extra_rounds = 0
        self.tied: tuple[int, ...] = ()
        self.duel_picks: tuple[str, ...] = ()
        self.duel_combats = 0
        self.winners: tuple[int, ...] = ()
        self.log_combats = 0  # combats in the whole game
        self.events_applied = 0
        self.story: StoryState | None = None  # Story mode: the squares, bouts and points

    def copy(self) -> GameState:
        """A copy that can be changed without touching this one."""
        new = GameState.__new__(GameState)
        for name in GameState.__slots__:
            setattr(new, name, getattr(self, name))
        new.pieces = dict(self.pieces)
        new.occ = dict(self.occ)
        new.decks = dict(self.decks)
        return new

    # ------------------------------------------------------------ views
    @property
    def players(self) -> tuple[str, ...]:
        """Player names by seat."""
        return self.config.players

    def on_board(self, seat: int) -> list[Piece]:
        """The seat's warriors standing on the board."""
        return [self.pieces[n] for n in self.teams[seat] if self.pieces[n].space is not None]

    def count(self, seat: int) -> int:
        """Warriors still on the board for ``seat``; a fusion counts two (§11)."""
        return sum(2 if p.name in FUSIONS else 1 for p in self.on_board(seat))

    def counts(self) -> tuple[int, ...]:
        """:meth:`count` for every seat."""
        return tuple(self.count(s) for s in range(len(self.players)))

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.phase is Phase.OVER

    @property
    def rounds(self) -> int | None:
        """The rounds the game plays (None: the 45-minute game); a Story game's are its
        squares (its ``round`` is the square being played)."""
        if self.story is not None:
            return len(self.story.story.squares)
        return self.config.rounds

    def summary(self) -> dict[str, object]:
        """A JSON-able digest, equal for equal states (used by tests and the kill test)."""
        return {
            "phase": self.phase.value,
            "seat": self.seat,
            "round": self.round,
            "pieces": sorted(
                [
                    p.name,
                    _number(p.seat),
                    _number(p.space),
                    p.damage,
                    p.eliminated,
                    p.fused_into or "",
                ]
                for p in self.pieces.values()
            ),
            "hands": [list(h) for h in self.hands],
            "decks": {k.value: list(v) for k, v in sorted(self.decks.items())},
            "green_deck": list(self.green_deck),
            "counts": list(self.counts()),
            "winners": list(self.winners),
            "combats": self.log_combats,
            "events": self.events_applied,
        } | ({} if self.story is None else {"story": self.story.summary()})


def _number(x: int | None) -> int:
    """A seat or space as the summary writes it: -1 for none (its JSON form is fixed, as is
    ``""`` for no fusion)."""
    return -1 if x is None else x
