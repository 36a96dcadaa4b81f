package express

// Card kinds: the 24 kinds of the deck, fixed data (docs/rules/express.md,
// "Cards"). A card is identified by its kind only; cards of one kind are
// interchangeable.
const (
	BoxCar = iota
	TankCar
	ContainerCar
	RefrigeratorCar
	AutoCarrier
	MailBaggage
	Coach
	Dome
	Sleeper
	Observation
	Diesel
	Wild
	Caboose
	BrokenCar
	Derailment
	StealCar
	SwitchEngines
	Wreck
	LightCrane
	Boom
	Office
	Transfer
	HeavyCrane
	Turntable
	NumKinds
)

// Kind is the fixed data of one card kind.
type Kind struct {
	Name  string
	Code  string // two letters, used by the notation and the action names
	Count int    // cards in the deck (Turntable: 3, 2 with 2-3 players)
	// Value is what a car of this kind scores in a train (freight: its
	// printed value; passenger cars 1) and what the card costs when left in
	// hand at the end of a hand (A7).
	Value int
}

// kinds lists the card kinds, index = kind; [CardKind] returns a copy.
var kinds = [NumKinds]Kind{
	{"Box Car", "BX", 12, 1},
	{"Tank Car", "TK", 11, 2},
	{"Container Car", "CN", 10, 3},
	{"Refrigerator Car", "RF", 9, 4},
	{"Auto Carrier", "AU", 8, 5},
	{"Mail/Baggage", "ML", 2, 1},
	{"Coach", "CO", 6, 1},
	{"Dome", "DM", 2, 1},
	{"Sleeper", "SL", 2, 1},
	{"Observation", "OB", 2, 1},
	{"Diesel", "DS", 2, 1},
	{"Wild Car", "WD", 2, 5},
	{"Caboose", "CB", 3, 3},
	{"Broken Car", "BR", 2, 3},
	{"Derailment", "DR", 2, 3},
	{"Steal Car", "ST", 2, 3},
	{"Switch Engines", "SW", 2, 3},
	{"Wreck", "WR", 1, 3},
	{"Light Crane", "LC", 2, 2},
	{"Boom", "BM", 2, 2},
	{"Office", "OF", 2, 2},
	{"Transfer", "TR", 2, 2},
	{"Heavy Crane", "HC", 2, 2},
	{"Turntable", "TT", 3, 3},
}

// Section types: the five freight types are the freight kinds 0-4;
// passenger sections are typePassenger.
const (
	typePassenger = 5
	numTypes      = 6
)

// Disasters and Way Cars: disaster d (0-4) is kind BrokenCar+d and is
// stopped by Way Car kind LightCrane+d.
const (
	numDisasters = 5
	numWayKinds  = 5
)

// DeckSize is the number of cards with 4-6 players (93); with 2-3 players
// one Turntable is left out (92).
const DeckSize = 93

// Caps of the observation and the action space (A10).
const (
	MaxPlayers = 6
	MaxTrains  = 6  // trains a player may have
	MaxCars    = 16 // cars a train may have
)

// isPlainCar reports whether kind k is a freight or passenger car.
func isPlainCar(k int) bool { return k <= Diesel }

// typeOf returns the section type of a plain car kind.
func typeOf(k int) int {
	if k <= AutoCarrier {
		return k
	}
	return typePassenger
}

// CardKind returns the fixed data of card kind k (0..NumKinds-1); it
// panics for k out of range.
func CardKind(k int) Kind { return kinds[k] }

// typeCodes name the section types in the notation and action names.
var typeCodes = [numTypes]string{"BX", "TK", "CN", "RF", "AU", "PS"}

func deckCount(k, players int) int {
	if k == Turntable && players <= 3 {
		return 2
	}
	return kinds[k].Count
}
