import type { ZodiacSign } from '../../common/profile';

export type { RoomPerson } from '../../common/room';

/** GET /api/v1/live/:vid/card/:uid. */
export interface PersonalCardData {
  uid: number;
  short_id: string;
  nickname: string;
  face: string | null;
  usign: string;
  level: number;
  birthday: string | null;
  zodiac: ZodiacSign | null;
  follower_count: number;
  following_count: number;
  relation: number;
  is_host: boolean;
  blocked: boolean;
  can_block: boolean;
}
