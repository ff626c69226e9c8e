import type { IgnoredInputReason } from '../domain/events';
import type { AuthorAssociation, Forge, RepositoryPermission } from '../forge/forge';

/** Associations that mean write access to the repository by themselves. */
const WRITE_ASSOCIATIONS: ReadonlySet<AuthorAssociation> = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);
const WRITE_PERMISSIONS: ReadonlySet<RepositoryPermission> = new Set(['admin', 'maintain', 'write']);

/** Whether an author may steer an agent, and if not, what was found out about them. */
export type AuthorStanding =
  | { trusted: true }
  | { trusted: false; why: Exclude<IgnoredInputReason, 'fork_check'>; association: AuthorAssociation; permission?: RepositoryPermission };

/**
 * Who may steer `watch`: people with write access to the repository, and the bots the user named
 * (taskloom.pullRequests.trustedBots, `--trusted-bot`). An association of OWNER, MEMBER or
 * COLLABORATOR says so; for anyone else (a private org member shows as CONTRIBUTOR or NONE) the
 * forge's collaborator permission is asked, once per author for the life of this object: one
 * watch session.
 */
export class AuthorTrust {
  private readonly permissions = new Map<string, Promise<RepositoryPermission>>();
  private readonly bots: ReadonlySet<string>;

  constructor(
    private readonly forge: Pick<Forge, 'permission'>,
    trustedBots: readonly string[],
  ) {
    this.bots = new Set(trustedBots.map((b) => b.trim().toLowerCase()).filter(Boolean));
  }

  async standing(author: { login: string; association: AuthorAssociation; bot: boolean }): Promise<AuthorStanding> {
    const { login, association } = author;
    if (author.bot) return this.bots.has(login.toLowerCase()) ? { trusted: true } : { trusted: false, why: 'untrusted_bot', association };
    if (WRITE_ASSOCIATIONS.has(association)) return { trusted: true };
    const permission = await this.permissionOf(login);
    return WRITE_PERMISSIONS.has(permission) ? { trusted: true } : { trusted: false, why: 'no_write_access', association, permission };
  }

  /** Whether `login` has write access as the forge's collaborator permission says, whatever the association: what a merge rests on. */
  async mayWrite(login: string): Promise<boolean> {
    return WRITE_PERMISSIONS.has(await this.permissionOf(login));
  }

  private permissionOf(login: string): Promise<RepositoryPermission> {
    const key = login.toLowerCase();
    let known = this.permissions.get(key);
    if (!known) {
      known = this.forge.permission(login);
      // A failed lookup (the network) is asked again on the next poll, not remembered.
      known.catch(() => this.permissions.delete(key));
      this.permissions.set(key, known);
    }
    return known;
  }
}
