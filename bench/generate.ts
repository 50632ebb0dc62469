/**
 * A synthetic company in the snapshot format of contracts.md: one team, a department tree five levels deep,
 * users with Chinese and English names, files of every kind and a mix of user, department and team grants.
 * Deterministic for a given seed, so two runs measure the same data.
 */

export interface GenerateOptions {
  users: number;
  departments: number;
  files: number;
  /** Average grants per file (the total is about files × this). */
  grantsPerFile: number;
  seed?: number;
}

export const COMPANY_SCALE: GenerateOptions = { users: 100_000, departments: 1_000, files: 200_000, grantsPerFile: 5 };

interface SnapshotDepartment {
  id: string;
  name: string;
  teamId: string;
  parentId: string | null;
}

interface SnapshotUser {
  id: string;
  name: string;
  email: string;
  avatar: string;
  teamId: string;
  departmentIds: string[];
}

interface SnapshotFile {
  id: string;
  name: string;
  type: string;
  creatorId: string;
  teamId: string;
  createdAt: string;
  updatedAt: string;
  views: number;
  sharing: Array<{ principal: string; role: string }>;
  ext?: string;
  downloadUrl?: string;
  fullUrl?: string;
}

export interface GeneratedCompany {
  snapshot: {
    teams: Array<{ id: string; name: string }>;
    departments: SnapshotDepartment[];
    users: SnapshotUser[];
    files: SnapshotFile[];
  };
  grantCount: number;
}

const SURNAMES = [
  ...'王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤',
];
const GIVEN = [...'伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰萍红建文辉力鹏飞宇浩然梅雪琳晨阳欣怡子涵佳豪俊博思雨婷轩睿泽'];
const FIRST_NAMES = [
  'James',
  'Mary',
  'John',
  'Linda',
  'Robert',
  'Susan',
  'Michael',
  'Karen',
  'David',
  'Lisa',
  'Daniel',
  'Emma',
  'Olivia',
  'Noah',
  'Liam',
  'Sophia',
  'Lucas',
  'Mia',
  'Ethan',
  'Grace',
];
const LAST_NAMES = ['Smith', 'Johnson', 'Brown', 'Taylor', 'Miller', 'Wilson', 'Moore', 'Anderson', 'Thomas', 'Jackson', 'White', 'Harris', 'Martin', 'Clark', 'Lewis'];
const DEPARTMENT_WORDS = [...'研发产品市场销售财务人事法务运营设计测试数据安全客服采购物流'].reduce<string[]>((words, char, index, chars) => {
  if (index % 2 === 0) words.push(char + (chars[index + 1] ?? ''));
  return words;
}, []);
const DEPARTMENT_SUFFIX = ['部', '中心', '组', '小组', '室'];
const FILE_TOPICS = ['季度计划', '周报', '会议纪要', '需求文档', '设计评审', '预算表', 'Roadmap', 'Budget', 'Sprint Review', 'Release Notes', '客户名单', '合同', 'OKR', '复盘'];
const TYPES = ['documentPro', 'document', 'spreadsheet', 'table', 'file'];
const EXTS = ['docx', 'pdf', 'xlsx', 'pptx'];
const ROLES = ['viewer', 'viewer', 'commenter', 'editor', 'editor', 'manager'];

/** A small, fast, seeded PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function generateCompany(options: GenerateOptions): GeneratedCompany {
  const random = prng(options.seed ?? 42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const teamId = 't1';

  // Five levels: each level about three times the one above, summing to `departments`.
  const levelShares = [1, 3, 9, 27, 81];
  const shareTotal = levelShares.reduce((sum, share) => sum + share, 0);
  const departments: SnapshotDepartment[] = [];
  const levels: string[][] = [];
  for (let level = 0; level < levelShares.length; level += 1) {
    const count =
      level === levelShares.length - 1 ? options.departments - departments.length : Math.max(1, Math.round((options.departments * (levelShares[level] as number)) / shareTotal));
    const ids: string[] = [];
    for (let index = 0; index < count && departments.length < options.departments; index += 1) {
      const id = `d${departments.length + 1}`;
      const parentId = level === 0 ? null : pick(levels[level - 1] as string[]);
      departments.push({ id, name: `${pick(DEPARTMENT_WORDS)}${pick(DEPARTMENT_SUFFIX)}${departments.length + 1}`, teamId, parentId });
      ids.push(id);
    }
    levels.push(ids);
  }
  const deepDepartments = [...(levels[3] ?? []), ...(levels[4] ?? [])];

  const users: SnapshotUser[] = [];
  for (let index = 1; index <= options.users; index += 1) {
    const chinese = random() < 0.7;
    const name = chinese ? pick(SURNAMES) + pick(GIVEN) + (random() < 0.6 ? pick(GIVEN) : '') : `${pick(FIRST_NAMES)} ${pick(LAST_NAMES)}`;
    const departmentIds = [pick(deepDepartments)];
    if (random() < 0.1) {
      const second = pick(departments).id;
      if (!departmentIds.includes(second)) departmentIds.push(second);
    }
    users.push({
      id: `u${index}`,
      name,
      email: `user${index}@example.com`,
      avatar: `https://avatars.example.com/u${index}.png`,
      teamId,
      departmentIds,
    });
  }

  const files: SnapshotFile[] = [];
  let grantCount = 0;
  const start = Date.UTC(2023, 0, 1) / 1000;
  for (let index = 1; index <= options.files; index += 1) {
    const type = pick(TYPES);
    const creator = `u${1 + Math.floor(random() * options.users)}`;
    const created = start + Math.floor(random() * 365 * 86400);
    const updated = created + Math.floor(random() * 60 * 86400);
    const sharing: SnapshotFile['sharing'] = [];
    const seen = new Set<string>([`user:${creator}`]);
    const add = (principal: string) => {
      if (seen.has(principal)) return;
      seen.add(principal);
      sharing.push({ principal, role: pick(ROLES) });
    };
    // About grantsPerFile grants: mostly users, some departments, and a team grant on one file in twenty.
    const userGrants = Math.floor(random() * (options.grantsPerFile * 1.8));
    for (let g = 0; g < userGrants; g += 1) add(`user:u${1 + Math.floor(random() * options.users)}`);
    const departmentGrants = Math.floor(random() * (options.grantsPerFile * 0.6));
    for (let g = 0; g < departmentGrants; g += 1) add(`department:${pick(departments).id}`);
    if (random() < 0.05) add(`team:${teamId}`);
    grantCount += sharing.length;
    const file: SnapshotFile = {
      id: `f${index}`,
      name: `${pick(FILE_TOPICS)} ${index}`,
      type,
      creatorId: creator,
      teamId,
      createdAt: iso(created),
      updatedAt: iso(updated),
      views: 1 + Math.floor(random() * 500),
      sharing,
    };
    if (type === 'file') {
      file.name += `.${pick(EXTS)}`;
      file.ext = file.name.split('.').pop() as string;
      file.downloadUrl = `https://files.example.com/f${index}`;
      file.fullUrl = `https://oa.example.com/files/f${index}`;
    }
    files.push(file);
  }

  return { snapshot: { teams: [{ id: teamId, name: '示例集团 Example Group' }], departments, users, files }, grantCount };
}

/** Who may act on each file (for events the platform could really send): the creator, and users granted editor or manager. */
export function actorsOf(files: readonly SnapshotFile[]): Array<{ fileId: string; userId: string }> {
  return files.flatMap((file) => [
    { fileId: file.id, userId: file.creatorId },
    ...file.sharing
      .filter((entry) => entry.principal.startsWith('user:') && (entry.role === 'editor' || entry.role === 'manager'))
      .map((entry) => ({ fileId: file.id, userId: entry.principal.slice('user:'.length) })),
  ]);
}

function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
