import { WATCH_ESCALATE_AFTER_MINUTES, WATCH_INTERVAL_SECONDS } from '../../engine/deliver/watchPullRequests';
import { TaskloomEngine } from '../../engine/run/engine';
import { watchTarget } from '../../engine/usecases/keepPullRequestsGreen';
import { EXIT, UsageError } from '../cliErrors';
import { dim, green, red, yellow } from '../format';
import { nextStepLines } from '../nextStepCommands';
import { parseCommandArgs } from '../parseCommandArgs';
import { NOTIFY_OPTION, notifyTargets } from '../notifyOption';
import { ALLOW_CONFIG_OPTION, commandSettings, definedOnly } from '../commandSettings';
import { flagValues, runSettingsFrom, withAddingFlags } from '../flagSettings';
import type { RunConfigFlags } from '../runOptions';
import { RUN_START_KEYS, type ProjectSettingKey } from '../../engine/domain/settingKeys';
import { createProgressPrinter } from '../progressPrinter';
import { adoptNamedPullRequest, WATCH_PR_OPTIONS } from './watchPr';
import { watchLabelledIssues } from './watchIssues';

export const WATCH_USAGE =
  'taskloom watch [RUN_ID | --pr NUMBER|URL [--remote NAME] [--repo OWNER/REPO] [run flags] | --issues LABEL [--remote NAME] [run flags]] [--once] [--interval SECONDS] [--timeout SECONDS] [--escalate-after MINUTES] [--auto-merge] [--trusted-bot LOGIN]... [--notify URL]... [--allow-config] [--cwd DIR]';

/**
 * `taskloom watch`: keeps the run's pull requests green (failing checks, reviews that request
 * changes and conflicts with the base go to agents; only what people with write access, and the
 * bots named by --trusted-bot, wrote), each on its own, until every one is merged (exit 0) or
 * closed, or needs a person with nothing else left to watch (exit 1); with --once, until each is
 * green. One red for --escalate-after minutes with no progress is escalated; --auto-merge merges a
 * green one that someone with write access approved. `--pr N` takes on a person's own pull request
 * first; `--issues LABEL` runs the labelled issues instead, and keeps their pull requests green between them (watchIssues.ts). Ctrl-C stops it; nothing is lost. What it watches is
 * src/engine/usecases/keepPullRequestsGreen.ts's; the CLI watches in the foreground, with progress.
 */
export async function watchCommand(argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, {
    once: { type: 'boolean' },
    interval: { type: 'string' },
    timeout: { type: 'string' },
    'escalate-after': { type: 'string' },
    'auto-merge': { type: 'boolean' },
    'trusted-bot': { type: 'string', multiple: true },
    issues: { type: 'string' },
    ...ALLOW_CONFIG_OPTION,
    ...WATCH_PR_OPTIONS,
    ...NOTIFY_OPTION,
  });
  const flags = {
    'pullRequests.pollSeconds': seconds(values.interval as string | undefined, '--interval'),
    'pullRequests.trustedBots': values['trusted-bot'] as string[] | undefined,
    'pullRequests.escalateAfterMinutes': minutes(values['escalate-after'] as string | undefined),
    'pullRequests.autoMerge': values['auto-merge'] === true ? true : undefined,
  };
  const timeoutSeconds = seconds(values.timeout as string | undefined, '--timeout');
  const once = values.once === true;
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom watch', notify: notifyTargets(values) });
  const controller = new AbortController();
  const onSignal = () => {
    const underWay = values.issues !== undefined ? 'a run under way stops too (taskloom resume finishes it), as does a pull request fix (the next watch finishes it)' : 'a fix under way stops too; run watch again to finish it';
    process.stderr.write(yellow(`\nStopping watch (${underWay})…\n`));
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const adopting = values.pr !== undefined;
    const label = issuesLabel(values.issues as string | undefined, adopting || positionals.length > 0);
    // A flag that would be silently ignored is refused instead: the issue watch ends only with Ctrl-C (or --once).
    if (label !== undefined && timeoutSeconds !== undefined) throw new UsageError('--timeout ends a watch of one run\'s pull requests; watch --issues runs until Ctrl-C (or one pass with --once)', WATCH_USAGE);
    // `--pr` and `--issues` make runs, whose agents, gate and limits the run flags and the file's run keys set.
    const makesRuns = adopting || label !== undefined;
    const watchFlags = makesRuns ? { ...flagValues(values as RunConfigFlags), ...definedOnly(flags) } : definedOnly(flags);
    const reads: ProjectSettingKey[] = ['pullRequests.pollSeconds', 'pullRequests.trustedBots', 'pullRequests.escalateAfterMinutes', 'pullRequests.autoMerge', 'github.apiUrl', ...(makesRuns ? RUN_START_KEYS : [])];
    const settings = await commandSettings(engine.repo.root, watchFlags, { allowConfig: values['allow-config'] === true, onWithheld: 'ask', reads });
    if (!settings) return EXIT.needsHuman;
    const intervalSeconds = (settings.values['pullRequests.pollSeconds'] as number | undefined) ?? WATCH_INTERVAL_SECONDS;
    const escalateAfterMinutes = (settings.values['pullRequests.escalateAfterMinutes'] as number | undefined) ?? WATCH_ESCALATE_AFTER_MINUTES;
    const apiUrl = settings.values['github.apiUrl'] as string | undefined;
    engine.reachForgeWith(apiUrl ? { apiUrl } : {});
    const pullRequests = {
      autoMerge: settings.values['pullRequests.autoMerge'] === true,
      escalateAfterMs: escalateAfterMinutes * 60_000,
      trustedBots: (settings.values['pullRequests.trustedBots'] as string[] | undefined) ?? [],
    };
    if (label !== undefined) {
      const runSettings = runSettingsFrom(withAddingFlags(settings, values as RunConfigFlags), values as RunConfigFlags);
      const remote = values.remote as string | undefined;
      const params = { label, settings: runSettings, baseDir: cwd, once, intervalMs: intervalSeconds * 1000, pullRequests, ...(remote ? { remote } : {}), ...(apiUrl ? { apiUrl } : {}) };
      await watchLabelledIssues(engine, params, controller.signal);
      return EXIT.ok;
    }
    const runId = adopting ? await adoptNamedPullRequest(engine, values, cwd, runSettingsFrom(withAddingFlags(settings, values as RunConfigFlags), values as RunConfigFlags), apiUrl) : positionals[0];
    const target = await watchTarget(engine.store, { runId, ...(apiUrl ? { apiUrl } : {}) });
    const session = engine.session(target.runId);
    const printer = createProgressPrinter();
    const stop = session.onEvent(printer);
    const started = Date.now();
    const stamp = () => dim(`${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s`);
    const until = once ? 'until green' : 'until merged or closed';
    process.stdout.write(`Watching ${target.pullRequests.map((p) => `#${p.number} ${p.url}`).join(', ')} every ${intervalSeconds}s, ${until}\n`);
    const outcome = await engine
      .watchPullRequests(
        session,
        target.forge,
        {
          intervalMs: intervalSeconds * 1000,
          once,
          ...pullRequests,
          ...(timeoutSeconds !== undefined ? { timeoutMs: timeoutSeconds * 1000 } : {}),
          onProgress: (line) => process.stdout.write(`${stamp()}  ${dim(line)}\n`),
        },
        controller.signal,
      )
      .finally(stop);
    for (const reason of outcome.reasons) {
      const colour = outcome.outcome === 'green' || outcome.outcome === 'merged' ? green : outcome.outcome === 'needs_human' ? red : yellow;
      process.stdout.write(`${colour(reason)}\n`);
    }
    if (outcome.next) process.stdout.write(`${outcome.next}\n${nextStepLines(outcome.steps ?? [])}`);
    return outcome.outcome === 'green' || outcome.outcome === 'merged' ? EXIT.ok : EXIT.needsHuman;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await engine.drainNotifications();
    engine.close();
  }
}

/** `--issues LABEL`, refused beside a run or a pull request to watch (it starts runs of its own). */
function issuesLabel(value: string | undefined, watchesOther: boolean): string | undefined {
  if (value === undefined) return undefined;
  if (!value.trim()) throw new UsageError('--issues takes the label whose issues to run, e.g. --issues taskloom', WATCH_USAGE);
  if (watchesOther) throw new UsageError('--issues runs the labelled issues: give it without a RUN_ID or --pr', WATCH_USAGE);
  return value.trim();
}

function seconds(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} takes a number of seconds, not "${value}"`, WATCH_USAGE);
  return n;
}

function minutes(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new UsageError(`--escalate-after takes a number of minutes (0: never), not "${value}"`, WATCH_USAGE);
  return n;
}
