import { useRegisterCommands } from "../commands/useCommands";
import type { GitModel } from "./git-model";

/** Source control's commands, for the keys and the palette; `show` opens the panel. */
export function useGitCommands(model: GitModel, show: () => void, report: (error: unknown) => void) {
  const repository = () => model.getSnapshot().status?.repository === true;
  const run = (action: () => Promise<void>) => () => {
    show();
    return action().catch(report);
  };
  useRegisterCommands(
    () => [
      { id: "git.show", title: "Source control: show the panel", keys: ["Mod-Shift-g"], run: show },
      { id: "git.refresh", title: "Source control: refresh", run: run(() => model.load()) },
      {
        id: "git.init",
        title: "Source control: initialize a repository",
        enabled: () => model.getSnapshot().status?.repository === false,
        run: run(() => model.init()),
      },
      {
        id: "git.stageAll",
        title: "Source control: stage all changes",
        enabled: repository,
        run: run(() => model.stage([...model.paths("changed"), ...model.paths("untracked")])),
      },
      {
        id: "git.unstageAll",
        title: "Source control: unstage all",
        enabled: repository,
        run: run(() => model.unstage(model.paths("staged"))),
      },
      {
        id: "git.commit",
        title: "Source control: commit staged changes",
        enabled: () => repository() && model.getSnapshot().draft.trim() !== "",
        run: run(() => model.commit()),
      },
      { id: "git.fetch", title: "Source control: fetch", enabled: repository, run: run(() => model.sync("fetch")) },
      { id: "git.pull", title: "Source control: pull", enabled: repository, run: run(() => model.sync("pull")) },
      { id: "git.push", title: "Source control: push", enabled: repository, run: run(() => model.sync("push")) },
    ],
    [model, show, report],
  );
}
