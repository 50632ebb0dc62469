import { describe, expect, it } from 'vitest';
import type { TeamState } from '../../src/store/directory-writes/directory-state.js';
import { teamChange, type DesiredTeam } from '../../src/sync/team-change.js';

const team = { id: 'corp', name: 'Corp' };
const current: TeamState = {
  team,
  departments: [
    { id: 'rd', name: '研发部', teamId: 'corp', parentId: null },
    { id: 'old', name: '旧部门', teamId: 'corp', parentId: null },
  ],
  users: [
    { id: 'same', name: '不变', teamId: 'corp', departmentIds: ['rd'], active: true },
    { id: 'marked', name: '水印', teamId: 'corp', departmentIds: [], watermark: ['机密'], active: true },
    { id: 'author', name: '作者', teamId: 'corp', departmentIds: ['old', 'rd'], active: true },
    { id: 'gone', name: '离开', teamId: 'corp', departmentIds: ['rd'], active: true },
  ],
  fileCreators: new Set(['author']),
};

describe('the change that makes a team what its source says', () => {
  it('writes only what differs, keeps watermarks, removes leavers and deactivates those who created files', () => {
    const desired: DesiredTeam = {
      team,
      departments: [{ id: 'rd', name: '研发部', teamId: 'corp', parentId: null }],
      users: [
        { id: 'same', name: '不变', teamId: 'corp', departmentIds: ['rd'], active: true },
        { id: 'marked', name: '水印', teamId: 'corp', departmentIds: [], active: true },
        { id: 'new', name: '新人', teamId: 'corp', departmentIds: ['rd'], active: true },
      ],
    };
    expect(teamChange(desired, current)).toEqual({
      upsert: {
        teams: [],
        departments: [],
        users: [
          { id: 'new', name: '新人', teamId: 'corp', departmentIds: ['rd'], active: true },
          { id: 'author', name: '作者', teamId: 'corp', departmentIds: ['rd'], active: false },
        ],
      },
      remove: { users: ['gone'], departments: ['old'] },
    });
  });

  it('creates the team when it is missing and renames it when its name changed', () => {
    const empty: TeamState = { team: undefined, departments: [], users: [], fileCreators: new Set() };
    expect(teamChange({ team, departments: [], users: [] }, empty).upsert?.teams).toEqual([team]);
    expect(teamChange({ team: { id: 'corp', name: 'Corp 公司' }, departments: [], users: [] }, { ...empty, team }).upsert?.teams).toEqual([{ id: 'corp', name: 'Corp 公司' }]);
  });
});
