// Package galaxyexpress holds the agents of Galaxy Express
// (galaxy-express-v1): the heuristic, registered as "heuristic" for the
// game's environment, and the leg value tables it plans with.
//
// How the heuristic plays (from the observation and the mask only):
//
// A leg is the trip to the target planet: from the ship's square and speed,
// with the face-up coins known and the face-down coins known as a set that
// turns up in random order, stop on the target at speed 0. Movement wraps
// around the 8x6 Star Chart, so a leg depends only on the target's offset
// from the ship, and the chart's two mirror symmetries leave 20 offset
// classes. Over every coin state (face-up and face-down values per suit)
// and speed, an expectimax programme gives the leg's value under the best
// policy against random reveals, in points of the seed's score: reaching
// the target scores 20 and leads to the next leg (the next target at the
// offset between two random planets, or a refuel first, -10), the last
// delivery scores the unspent coins, and giving up on the target to refuel
// elsewhere is worth a refuelled start. There is one table for the last
// delivery, one for two to go, and one for three (used whenever three or
// more remain), built once per process in about a second on two cores.
//
// Each decision looks one step ahead over the legal actions and the coin
// that turns up next: a coin and direction score the table value of the
// resulting position: towards the target, or, while the target is not
// scanned, the mean over the unscanned planets that may be it (those the
// slide scans count as found) less a small penalty per planet still
// unknown; a delivery is valued with the planets actually left to deliver
// to. A large penalty applies when a reveal can leave no planet to stop on
// (Lost in Space). A refuel decision compares going on with a fresh load
// less 10; the launch planet is the one with the best scouting value.
package galaxyexpress
