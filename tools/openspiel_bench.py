"""Random simulation of OpenSpiel's C++ gin_rummy: pyspiel.evaluate_bots runs
the whole episode in C++ with C++ uniform random bots (chance nodes sampled in
C++). Only the evaluate_bots calls are timed; decisions and all actions are
counted from the finished state's full history.

Usage: python tools/openspiel_bench.py [game] [episodes]   (pip install open_spiel)
Figures and the comparison with express-v1: docs/performance.md."""
import sys, time, pyspiel
game_name = sys.argv[1] if len(sys.argv) > 1 else "gin_rummy"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 200
game = pyspiel.load_game(game_name)
nplayers = game.num_players()
bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(nplayers)]
elapsed, decisions, actions = 0.0, 0, 0
for i in range(N):
    st = game.new_initial_state()
    t0 = time.perf_counter()
    pyspiel.evaluate_bots(st, bots, i)
    elapsed += time.perf_counter() - t0
    h = st.full_history()
    actions += len(h)
    decisions += sum(1 for pa in h if pa.player >= 0)
print(f"{game_name}: {N} episodes, {decisions/N:.1f} decisions and {actions/N:.1f} actions per episode, "
      f"{decisions/elapsed:,.0f} decisions/s, {actions/elapsed:,.0f} actions/s (incl. chance), "
      f"{N/elapsed:,.0f} episodes/s")
